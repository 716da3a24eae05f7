// The many-tenant scenario of `npm run bench:bulk -- --tenants=N [--tenant-rows=300]`, in-process: N
// accounts each submit one job at once (tenant-jobs.ts), with the background loops running as in
// production; besides the send figures, the statements the app ran (counted at its driver) and the CPU
// of this process and of the local database server. (`--built`: bulk-tenants-built.ts.)
import type { DataSource } from 'typeorm';
import { countStatements, handlerCounts, localServerCpu } from './bench-database';
import { fmt, MPS, reportSends, runJobs, submitAll } from './tenant-jobs';

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

export async function tenantScenario(opts: ScenarioOptions): Promise<void> {
  const { ds, port, tenants, rows } = opts;
  const keys = await tenantKeys(opts);
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
  const run = await runJobs(ds, [port], keys, rows);
  counted.stop();
  const nodeCpu = process.cpuUsage(cpuAtStart.node);
  const serverSeconds = serverCpu ? serverCpu() - cpuAtStart.server : null;
  const rowsAtEnd = await handlerCounts(ds, mysql);
  const { sent } = await reportSends(ds, run, rows);
  console.log(
    `tenants: ${(counted.statements / Math.max(1, sent)).toFixed(2)} statements per message sent over the whole scenario (intake, validation, dispatch, receipts; transaction control not counted)`,
  );
  const perMessage = (seconds: number) => `${fmt((seconds * 1e6) / Math.max(1, sent))} us`;
  const nodeSeconds = (nodeCpu.user + nodeCpu.system) / 1e6;
  console.log(
    `tenants: CPU per message sent: this process (service and client worker) ${perMessage(nodeSeconds)}${serverSeconds === null ? '' : `, the local database server ${perMessage(serverSeconds)}`} (${nodeSeconds.toFixed(1)} s${serverSeconds === null ? '' : ` and ${serverSeconds.toFixed(1)} s`} in all)`,
  );
  if (rowsAtStart && rowsAtEnd) {
    const per = (k: keyof typeof rowsAtEnd) => ((rowsAtEnd[k] - rowsAtStart[k]) / Math.max(1, sent)).toFixed(1);
    console.log(
      `tenants: server rows per message sent: ${per('written')} written, ${per('read')} read (${per('scanned')} of them by scans), ${per('tmp')} to temporary tables (this benchmark's progress reads included)`,
    );
  }
  if (process.env.BENCH_STATEMENTS)
    for (const [shape, n] of [...counted.shapes].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.log(`  ${String(n).padStart(8)}  ${shape}`);
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
  const accepted = await submitAll([opts.port], keys, rows);
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
