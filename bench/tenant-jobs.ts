// The many-tenant scenario's client and measurements, shared by its in-process run (bulk-tenants.ts) and
// its black-box run against the built service (bulk-tenants-built.ts): N accounts each submit one job
// at once from a client worker thread (50 connections, round-robin over the replicas' ports), and the
// sends are read back from the database: each job's first send after its 202, the aggregate send rate
// per second, and pacing per job.
import { Worker } from 'node:worker_threads';
import { element } from './bulk-clients';

export const MPS = 10;

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** What the scenario reads the database through: a TypeORM DataSource, or a plain connection from outside. */
export interface SqlReader {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

const SUBMITTER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { ports, keys, rows, mps, concurrency } = workerData;
const element = ${element.toString()};
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const body = (t) => '{"name":"tenant ' + t + '","messagesPerSecond":' + mps + ',"messages":[' + Array.from({ length: rows }, (_, i) => element(t * rows + i)).join(',') + ']}';
const accepted = new Array(keys.length);
let next = 0;
let done = 0;
const one = () => {
  const t = next++;
  if (t >= keys.length) return;
  send(t, body(t));
};
// A kept-alive socket the server closed as it was reused (ECONNRESET) is retried once, with the same Idempotency-Key.
const send = (t, data, retried) => {
  const req = http.request({ host: '127.0.0.1', port: ports[t % ports.length], method: 'POST', path: '/api/v2/messages/bulk', agent, headers: { 'X-API-Key': keys[t], 'Idempotency-Key': 'tenant-' + t, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } }, (res) => {
    let text = '';
    res.on('data', (c) => (text += c));
    res.on('end', () => {
      accepted[t] = { at: Date.now(), status: res.statusCode, id: res.statusCode === 202 ? JSON.parse(text).id : text.slice(0, 200) };
      if (++done === keys.length) parentPort.postMessage(accepted); else one();
    });
  });
  req.on('error', (e) => { if (req.reusedSocket && e.code === 'ECONNRESET' && !retried) return send(t, data, true); accepted[t] = { at: Date.now(), status: 0, id: String(e) }; if (++done === keys.length) parentPort.postMessage(accepted); else one(); });
  req.end(data);
};
parentPort.once('message', () => { for (let i = 0; i < concurrency; i++) one(); });
parentPort.postMessage('ready');
`;

export interface Accepted {
  at: number;
  status: number;
  id: string;
}

function submit(ports: number[], keys: string[], rows: number): Promise<Accepted[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(SUBMITTER, { eval: true, workerData: { ports, keys, rows, mps: MPS, concurrency: 50 } });
    w.once('error', reject);
    w.on('message', (m: 'ready' | Accepted[]) => {
      if (m === 'ready') w.postMessage('go');
      else void w.terminate().then(() => resolve(m));
    });
  });
}

/** Every job accepted (202), or the first failure thrown; tenant t's job goes to `ports[t % ports.length]`. */
export async function submitAll(ports: number[], keys: string[], rows: number): Promise<Accepted[]> {
  const accepted = await submit(ports, keys, rows);
  const bad = accepted.filter((a) => a.status !== 202);
  if (bad.length) throw new Error(`${bad.length} submissions failed, e.g. ${JSON.stringify(bad[0])}`);
  return accepted;
}

/** One scenario run: when it started, each job's 202, and validation progress as sampled. */
export interface JobsRun {
  t0: number;
  accepted: Accepted[];
  lastAccepted: number;
  validatedAt: number | null;
  /** [time, rows validated across jobs], every 100 ms until every job was validated. */
  validatedSamples: [number, number][];
  /** Statements this benchmark sent to read progress (to leave out of server-wide counts). */
  ownQueries: number;
}

/** Submits every tenant's job at once and waits until every job has completed (or a deadline passed). */
export async function runJobs(db: SqlReader, ports: number[], keys: string[], rows: number): Promise<JobsRun> {
  const run: JobsRun = {
    t0: Date.now(),
    accepted: [],
    lastAccepted: 0,
    validatedAt: null,
    validatedSamples: [],
    ownQueries: 0,
  };
  let allAccepted = false;
  const watch = setInterval(() => {
    if (run.validatedAt !== null) return;
    run.ownQueries++;
    void db
      .query(
        "SELECT COALESCE(SUM(validated_count), 0) AS v, SUM(CASE WHEN status IN ('accepting', 'validating') THEN 1 ELSE 0 END) AS n FROM bulk_jobs",
      )
      .then((res) => {
        const [r] = res as { v: number | string; n: number | string }[];
        run.validatedSamples.push([Date.now(), Number(r.v)]);
        if (allAccepted && run.validatedAt === null && Number(r.n) === 0) run.validatedAt = Date.now();
      })
      .catch((err: unknown) => console.log(`tenants: a progress read failed (${String(err)})`));
  }, 100);
  try {
    run.accepted = await submitAll(ports, keys, rows);
  } catch (err) {
    clearInterval(watch);
    throw err;
  }
  allAccepted = true;
  run.lastAccepted = Math.max(...run.accepted.map((a) => a.at));
  console.log(`tenants: ${fmt(keys.length)} jobs accepted in ${((run.lastAccepted - run.t0) / 1000).toFixed(1)} s`);
  const ids = run.accepted.map((a) => a.id);
  const marks = ids.map(() => '?').join(',');
  const deadline = Date.now() + (rows / MPS) * 1000 * 6 + 120_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    run.ownQueries++;
    const [{ n }] = (await db.query(
      `SELECT COUNT(*) AS n FROM bulk_jobs WHERE id IN (${marks}) AND status NOT IN ('completed', 'cancelled', 'rejected')`,
      ids,
    )) as { n: number | string }[];
    if (Number(n) === 0) break;
    if (Date.now() > deadline) {
      console.log(`tenants: stopped waiting, ${n} jobs not completed`);
      break;
    }
  }
  clearInterval(watch);
  return run;
}

/** Bests of the per-second send counts over `span` consecutive seconds. */
function bestWindow(perSecond: number[], span: number): number {
  let best = 0;
  for (let i = 0, sum = 0; i < perSecond.length; i++) {
    sum += perSecond[i] - (i >= span ? perSecond[i - span] : 0);
    best = Math.max(best, sum / Math.min(span, i + 1));
  }
  return best;
}

/**
 * Reads the run's sends (the sandbox's delivery log) and prints the send figures: messages sent,
 * validation, first send after the 202, the best 30 s of the aggregate rate, and the most sends of
 * one job in any 1 s window. Returns how many messages were sent and the best 30 s rate.
 */
export async function reportSends(db: SqlReader, run: JobsRun, rows: number): Promise<{ sent: number; best: number }> {
  const { t0, accepted, validatedAt } = run;
  const tenants = accepted.length;
  const total = tenants * rows;
  const ids = accepted.map((a) => a.id);
  const sent = (await db.query(
    `SELECT bulk_job_id, delivered_at FROM sandbox_deliveries WHERE outcome = 'sent' AND bulk_job_id IN (${ids.map(() => '?').join(',')})`,
    ids,
  )) as { bulk_job_id: string; delivered_at: number | string }[];
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
  const perSecond = new Array<number>(Math.ceil((all[all.length - 1] - all[0]) / 1000) + 1).fill(0);
  for (const t of all) perSecond[Math.floor((t - all[0]) / 1000)]++;
  if (process.env.BENCH_SERIES)
    console.log(
      `tenants: sends per second from the first send (first at ${((all[0] - t0) / 1000).toFixed(1)} s after the first request): ${perSecond.join(' ')}`,
    );
  const best = bestWindow(perSecond, 30);
  const validation =
    validatedAt === null
      ? 'not seen'
      : `${((validatedAt - t0) / 1000).toFixed(1)} s after the first request (${fmt(total / ((validatedAt - t0) / 1000))} rows/s across jobs, intake included)`;
  const samples = run.validatedSamples;
  let bestValidation = 0;
  for (let i = 0, j = 0; i < samples.length; i++) {
    while (samples[i][0] - samples[j][0] > 1000) j++;
    const span = (samples[i][0] - samples[j][0]) / 1000;
    if (span >= 0.5) bestValidation = Math.max(bestValidation, (samples[i][1] - samples[j][1]) / span);
  }
  console.log(`tenants: ${fmt(sent.length)} of ${fmt(total)} messages sent; every job validated ${validation}`);
  console.log(
    `tenants: validation across jobs, best one-second rate ${fmt(bestValidation)} rows/s (while intake and dispatch run alongside); last job validated ${validatedAt === null ? '-' : ((validatedAt - run.lastAccepted) / 1000).toFixed(1)} s after the last 202`,
  );
  console.log(
    `tenants: first send after the 202: median ${pct(50).toFixed(1)} s, p90 ${pct(90).toFixed(1)} s, worst ${pct(100).toFixed(1)} s (target <= 30 s)`,
  );
  console.log(
    `tenants: best 30 s window ${fmt(best)} msg/s = ${((best / (tenants * MPS)) * 100).toFixed(1)}% of ${fmt(tenants * MPS)}/s (target >= 6,500); whole run ${fmt(sent.length / ((all[all.length - 1] - t0) / 1000))}/s since the first request`,
  );
  console.log(
    `tenants: max sends of one job in any 1 s window: ${worstWindow} (ceiling ${MPS})${worstWindow > MPS ? '  <-- OVER' : ''}`,
  );
  return { sent: sent.length, best };
}
