// The many-tenant scenario of `npm run bench:bulk -- --tenants=N [--tenant-rows=300]`: N accounts
// each submit one job at once (from a client worker thread, 50 connections), with the background
// loops running as in production; measured from outside: when each job started sending after its
// 202, the aggregate send rate over time, and pacing per job.
import { Worker } from 'node:worker_threads';
import type { DataSource } from 'typeorm';
import { element } from './bulk-clients';
import { countStatements, handlerCounts, localServerCpu } from './bench-database';

const MPS = 10;

const SUBMITTER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, keys, rows, mps, concurrency } = workerData;
const element = ${element.toString()};
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const body = (t) => '{"name":"tenant ' + t + '","messagesPerSecond":' + mps + ',"messages":[' + Array.from({ length: rows }, (_, i) => element(t * rows + i)).join(',') + ']}';
const accepted = new Array(keys.length);
let next = 0;
let done = 0;
const one = () => {
  const t = next++;
  if (t >= keys.length) return;
  const data = body(t);
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v2/messages/bulk', agent, headers: { 'X-API-Key': keys[t], 'Idempotency-Key': 'tenant-' + t, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } }, (res) => {
    let text = '';
    res.on('data', (c) => (text += c));
    res.on('end', () => {
      accepted[t] = { at: Date.now(), status: res.statusCode, id: res.statusCode === 202 ? JSON.parse(text).id : text.slice(0, 200) };
      if (++done === keys.length) parentPort.postMessage(accepted); else one();
    });
  });
  req.on('error', (e) => { accepted[t] = { at: Date.now(), status: 0, id: String(e) }; if (++done === keys.length) parentPort.postMessage(accepted); else one(); });
  req.end(data);
};
parentPort.once('message', () => { for (let i = 0; i < concurrency; i++) one(); });
parentPort.postMessage('ready');
`;

interface Accepted {
  at: number;
  status: number;
  id: string;
}

function submit(port: number, keys: string[], rows: number): Promise<Accepted[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(SUBMITTER, { eval: true, workerData: { port, keys, rows, mps: MPS, concurrency: 50 } });
    w.once('error', reject);
    w.on('message', (m: 'ready' | Accepted[]) => {
      if (m === 'ready') w.postMessage('go');
      else void w.terminate().then(() => resolve(m));
    });
  });
}

/** Every job accepted (202), or the first failure thrown. */
async function submitAll(port: number, keys: string[], rows: number): Promise<Accepted[]> {
  const accepted = await submit(port, keys, rows);
  const bad = accepted.filter((a) => a.status !== 202);
  if (bad.length) throw new Error(`${bad.length} submissions failed, e.g. ${JSON.stringify(bad[0])}`);
  return accepted;
}

interface ScenarioOptions {
  ds: DataSource;
  port: number;
  tenants: number;
  rows: number;
  createAccount: (i: number) => Promise<string>;
}

async function tenantKeys(opts: ScenarioOptions): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < opts.tenants; i++) keys.push(await opts.createAccount(i));
  return keys;
}

/** The scenario runs on a MySQL / MariaDB server (not the embedded database). */
const onServer = (ds: DataSource) => ds.options.type === 'mysql' || ds.options.type === 'mariadb';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function tenantScenario(opts: ScenarioOptions): Promise<void> {
  const { ds, port, tenants, rows } = opts;
  const keys = await tenantKeys(opts);
  const total = tenants * rows;
  console.log(
    `tenants: ${fmt(tenants)} accounts x ${rows} rows at ${MPS}/s each (ceiling ${fmt(tenants * MPS)}/s), submitted at once over 50 connections`,
  );
  // Statements of the whole scenario (transaction control left out), by shape: the first words of each.
  const counted = countStatements(ds);
  const mysql = onServer(ds);
  // (A database server on this box is only this scenario's on MySQL / MariaDB.)
  const serverCpu = mysql ? localServerCpu() : null;
  const cpuAtStart = { node: process.cpuUsage(), server: serverCpu?.() ?? 0 };
  const rowsAtStart = await handlerCounts(ds, mysql);
  const t0 = Date.now();
  let validatedAt: number | null = null;
  let allAccepted = false;
  // Rows validated so far, sampled every 100 ms until every job is validated: the best one-second rate.
  const validatedSamples: [number, number][] = [];
  const watch = setInterval(() => {
    if (validatedAt !== null) return;
    void ds
      .query(
        "SELECT COALESCE(SUM(validated_count), 0) AS v, SUM(CASE WHEN status IN ('accepting', 'validating') THEN 1 ELSE 0 END) AS n FROM bulk_jobs",
      )
      .then(([r]: { v: number | string; n: number | string }[]) => {
        validatedSamples.push([Date.now(), Number(r.v)]);
        if (allAccepted && validatedAt === null && Number(r.n) === 0) validatedAt = Date.now();
      });
  }, 100);
  const accepted = await submitAll(port, keys, rows);
  allAccepted = true;
  const lastAccepted = Math.max(...accepted.map((a) => a.at));
  console.log(`tenants: ${fmt(tenants)} jobs accepted in ${((lastAccepted - t0) / 1000).toFixed(1)} s`);
  const ids = accepted.map((a) => a.id);
  const marks = ids.map(() => '?').join(',');
  const deadline = Date.now() + (rows / MPS) * 1000 * 6 + 120_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const [{ n }] = await ds.query(
      `SELECT COUNT(*) AS n FROM bulk_jobs WHERE id IN (${marks}) AND status NOT IN ('completed', 'cancelled', 'rejected')`,
      ids,
    );
    if (Number(n) === 0) break;
    if (Date.now() > deadline) {
      console.log(`tenants: stopped waiting, ${n} jobs not completed`);
      break;
    }
  }
  clearInterval(watch);
  counted.stop();
  const nodeCpu = process.cpuUsage(cpuAtStart.node);
  const serverSeconds = serverCpu ? serverCpu() - cpuAtStart.server : null;
  const rowsAtEnd = await handlerCounts(ds, mysql);
  const sent: { bulk_job_id: string; delivered_at: number | string }[] = await ds.query(
    `SELECT bulk_job_id, delivered_at FROM sandbox_deliveries WHERE outcome = 'sent' AND bulk_job_id IN (${marks})`,
    ids,
  );
  const byJob = new Map<string, number[]>();
  for (const r of sent) {
    const list = byJob.get(r.bulk_job_id) ?? [];
    list.push(Number(r.delivered_at));
    byJob.set(r.bulk_job_id, list);
  }
  // Start latency: a job's first send after its 202.
  const starts = accepted.map((a) => Math.min(...(byJob.get(a.id) ?? [Infinity])) - a.at).sort((a, b) => a - b);
  const pct = (p: number) => starts[Math.min(starts.length - 1, Math.floor((p / 100) * starts.length))] / 1000;
  let worstWindow = 0;
  for (const times of byJob.values()) {
    times.sort((a, b) => a - b);
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i] - times[j] >= 1000) j++;
      worstWindow = Math.max(worstWindow, i - j + 1);
    }
  }
  // Aggregate: sends per second since the first one; the best 30 consecutive seconds.
  const all = sent.map((r) => Number(r.delivered_at)).sort((a, b) => a - b);
  const perSecond = new Array(Math.ceil((all[all.length - 1] - all[0]) / 1000) + 1).fill(0);
  for (const t of all) perSecond[Math.floor((t - all[0]) / 1000)]++;
  if (process.env.BENCH_SERIES)
    console.log(
      `tenants: sends per second from the first send (first at ${((all[0] - t0) / 1000).toFixed(1)} s after the first request): ${perSecond.join(' ')}`,
    );
  let best = 0;
  for (let i = 0, sum = 0; i < perSecond.length; i++) {
    sum += perSecond[i] - (i >= 30 ? perSecond[i - 30] : 0);
    best = Math.max(best, sum / Math.min(30, i + 1));
  }
  const validation =
    validatedAt === null
      ? 'not seen'
      : `${(((validatedAt as number) - t0) / 1000).toFixed(1)} s after the first request (${fmt(total / (((validatedAt as number) - t0) / 1000))} rows/s across jobs, intake included)`;
  let bestValidation = 0;
  for (let i = 0, j = 0; i < validatedSamples.length; i++) {
    while (validatedSamples[i][0] - validatedSamples[j][0] > 1000) j++;
    const span = (validatedSamples[i][0] - validatedSamples[j][0]) / 1000;
    if (span >= 0.5)
      bestValidation = Math.max(bestValidation, (validatedSamples[i][1] - validatedSamples[j][1]) / span);
  }
  console.log(`tenants: ${fmt(sent.length)} of ${fmt(total)} messages sent; every job validated ${validation}`);
  console.log(
    `tenants: validation across jobs, best one-second rate ${fmt(bestValidation)} rows/s (while intake and dispatch run alongside); last job validated ${validatedAt === null ? '-' : (((validatedAt as number) - lastAccepted) / 1000).toFixed(1)} s after the last 202`,
  );
  console.log(
    `tenants: first send after the 202: median ${pct(50).toFixed(1)} s, p90 ${pct(90).toFixed(1)} s, worst ${pct(100).toFixed(1)} s (target <= 30 s)`,
  );
  console.log(
    `tenants: best 30 s window ${fmt(best)} msg/s = ${((best / (tenants * MPS)) * 100).toFixed(1)}% of ${fmt(tenants * MPS)}/s (target >= 5,000); whole run ${fmt(sent.length / ((all[all.length - 1] - t0) / 1000))}/s since the first request`,
  );
  console.log(
    `tenants: ${(counted.statements / Math.max(1, sent.length)).toFixed(2)} statements per message sent over the whole scenario (intake, validation, dispatch, receipts; transaction control not counted)`,
  );
  const perMessage = (seconds: number) => `${fmt((seconds * 1e6) / Math.max(1, sent.length))} us`;
  const nodeSeconds = (nodeCpu.user + nodeCpu.system) / 1e6;
  console.log(
    `tenants: CPU per message sent: this process (service and client worker) ${perMessage(nodeSeconds)}${serverSeconds === null ? '' : `, the local database server ${perMessage(serverSeconds)}`} (${nodeSeconds.toFixed(1)} s${serverSeconds === null ? '' : ` and ${serverSeconds.toFixed(1)} s`} in all)`,
  );
  if (rowsAtStart && rowsAtEnd) {
    const per = (k: keyof typeof rowsAtEnd) => ((rowsAtEnd[k] - rowsAtStart[k]) / Math.max(1, sent.length)).toFixed(1);
    console.log(
      `tenants: server rows per message sent: ${per('written')} written, ${per('read')} read (${per('scanned')} of them by scans), ${per('tmp')} to temporary tables (this benchmark's progress reads included)`,
    );
  }
  if (process.env.BENCH_STATEMENTS)
    for (const [shape, n] of [...counted.shapes].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.log(`  ${String(n).padStart(8)}  ${shape}`);
  console.log(
    `tenants: max sends of one job in any 1 s window: ${worstWindow} (ceiling ${MPS})${worstWindow > MPS ? '  <-- OVER' : ''}`,
  );
}

/**
 * `--tenants=N --backlog`: validation across many jobs measured as a single job's is (bulk.bench.ts),
 * on an otherwise idle service with no loop running: N accounts' jobs are accepted first, then one
 * validation pass (`validateAll`) takes them all, and its rows/s is compared with one job's.
 */
export async function backlogScenario(opts: ScenarioOptions & { validateAll: () => Promise<number> }): Promise<void> {
  const { ds, tenants, rows } = opts;
  const keys = await tenantKeys(opts);
  const t0 = Date.now();
  const accepted = await submitAll(opts.port, keys, rows);
  const ids = accepted.map((a) => a.id);
  const marks = ids.map(() => '?').join(',');
  const count = async (): Promise<{ v: number; n: number }> => {
    const [r]: { v: number | string; n: number | string }[] = await ds.query(
      `SELECT COALESCE(SUM(validated_count), 0) AS v, SUM(CASE WHEN status = 'queued' THEN 1 ELSE 0 END) AS n FROM bulk_jobs WHERE id IN (${marks})`,
      ids,
    );
    return { v: Number(r.v), n: Number(r.n) };
  };
  const before = await count();
  console.log(
    `backlog: ${fmt(tenants)} jobs x ${rows} rows accepted in ${((Date.now() - t0) / 1000).toFixed(1)} s over 50 connections, ${fmt(before.v)} rows validated meanwhile (no loop runs)`,
  );
  const serverCpu = onServer(ds) ? localServerCpu() : null;
  const cpu = { node: process.cpuUsage(), server: serverCpu?.() ?? 0 };
  const started = performance.now();
  const finished = await opts.validateAll();
  const secs = (performance.now() - started) / 1000;
  const after = await count();
  const nodeCpu = process.cpuUsage(cpu.node);
  const server = serverCpu ? `, the local database server ${fmt(((serverCpu() - cpu.server) * 1e6) / after.v)} us` : '';
  console.log(
    `backlog: one validation pass over ${fmt(tenants)} jobs: ${secs.toFixed(2)} s, ${fmt((after.v - before.v) / secs)} rows/s across jobs (${fmt(finished)} jobs finished, ${fmt(after.n)} queued; target >= 50,000)`,
  );
  console.log(
    `backlog: CPU per row validated: this process ${fmt((nodeCpu.user + nodeCpu.system) / after.v)} us${server}`,
  );
}
