import type { AccountId } from '../common/account-id';
import { Registry } from 'prom-client';
import { FakeClock } from '../common/fake-clock';
import { loadConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { ALLOW } from '../messaging/policy/send-policy';
import { pipelineHarness, PipelineHarness, smsTo } from '../messaging/testing/pipeline-harness';
import { ValidationContext } from '../messaging/validation/validation-context';
import { BulkJobEvents } from './bulk-job-events';
import { BulkJobLeasesRepository } from './bulk-job-leases.repository';
import { BulkJobWindowsRepository } from './bulk-job-windows.repository';
import { WindowRowsRepository } from './window-rows.repository';
import { BulkJobRunner, RunnerDeps } from './bulk-job-runner';
import { BulkJobRepository } from './bulk-job.repository';
import { BulkRowRepository, rowStatements } from './bulk-row.repository';
import { BulkSettings } from './bulk-settings';
import { WindowBatches } from './window-batches';
import { accountIdOf } from '../common/account-id';

describe(BulkJobRunner.name, () => {
  // Dispatch lease max(BULK_LEASE_MS, 2 x 3 s) = 6 s; a call starts only with 4.5 s of it left.
  const config = loadConfig({
    NODE_ENV: 'test',
    BULK_LEASE_MS: '100',
    PROVIDER_TIMEOUT_MS: '3000',
    BULK_SEND_LANES: '1',
    BULK_INSTANCE_ID: 'rep_spec',
  });
  const settings = new BulkSettings(config);
  let h: PipelineHarness;
  let clock: FakeClock;
  let deps: RunnerDeps;
  let jobs: BulkJobRepository;
  let ids = 0;
  /** The job under test (one at a time). */
  let current = '';
  /** The job's lease end as the database had it when each provider call started. */
  let leaseAtCall: { startedAt: number; leaseExpiresAt: number; owner: string }[];
  /** Called at the start of each provider call (after its lease was read). */
  let onCall: (n: number) => Promise<void>;

  beforeAll(async () => {
    clock = new FakeClock({ autoAdvance: true });
    h = await pipelineHarness({ lookup: true, clock });
    jobs = new BulkJobRepository(h.uow);
    const leases = new BulkJobLeasesRepository(h.uow);
    const rows = new BulkRowRepository(h.uow);
    const events = new BulkJobEvents(h.uow, clock, jobs, { record: () => Promise.resolve() });
    deps = {
      clock,
      settings,
      // Every row is an SMS to its `to` (validation has its own spec).
      validator: {
        createContext: (accountId) => new ValidationContext(accountId),
        validate: (_ctx, input) => Promise.resolve(smsTo(recipientOf(input))),
      },
      windows: h.windows,
      metrics: new MetricsService(new Registry(), config),
      leases,
      rows,
      batches: new WindowBatches(h.uow, new BulkJobWindowsRepository(), new WindowRowsRepository(h.uow), settings),
      events,
      policy: { decide: (subjects) => Promise.resolve(subjects.map(() => ALLOW)) },
    };
    const send = h.provider.send.bind(h.provider);
    h.provider.send = async (m) => {
      const [job] = await h.uow.manager.query('SELECT lease_owner, lease_expires_at FROM bulk_jobs WHERE id = ?', [
        current,
      ]);
      leaseAtCall.push({
        startedAt: clock.now(),
        leaseExpiresAt: Number(job.lease_expires_at),
        owner: job.lease_owner,
      });
      await onCall(leaseAtCall.length);
      return send(m);
    };
  });
  beforeEach(() => {
    leaseAtCall = [];
    onCall = () => Promise.resolve();
    h.provider.calls.length = 0;
  });
  afterAll(() => h.close());

  /** A validated job of `n` SMS rows, running and leased to this replica (as the dispatcher leaves it). */
  async function leasedJob(accountId: AccountId, n: number): Promise<string> {
    const id = (current = `bulk_spec_${++ids}`);
    await jobs.create(id, accountId, settings.instanceId, clock.now() + settings.dispatchLeaseMs, clock.now());
    const payloads = Array.from({ length: n }, (_, i) => ({ to: `+96650300${String(i).padStart(4, '0')}` }));
    await h.uow.run(
      rowStatements.insertBatch(
        id,
        payloads.map((p, idx) => ({ idx, to: p.to, channel: 'local_sms', payload: JSON.stringify(p) })),
      ),
    );
    await h.uow.manager.query(`UPDATE bulk_jobs SET status = 'running', total = ?, pending_count = ? WHERE id = ?`, [
      n,
      n,
      id,
    ]);
    return id;
  }

  const runnerOf = (jobId: string, accountId: string, mps: number) =>
    new BulkJobRunner(deps, { id: jobId, accountId: accountIdOf(accountId), mps, instantReceipts: false }, true);

  const job = async (id: string) =>
    (await h.uow.manager.query('SELECT status, sent_count, lease_owner FROM bulk_jobs WHERE id = ?', [id]))[0];

  it('keeps its lease through a window slower than the lease: the runner renews it before a call it might not outlast, each row sent once', async () => {
    const acc = await h.account({ wallet: 1000 });
    const id = await leasedJob(acc, 10);
    // 10 rows in one window of 10 at 700 ms a call: 7 s, more than the 6 s lease.
    h.provider.callMs = 700;
    expect(await runnerOf(id, acc, 10).run()).toBe('done');
    expect(h.provider.calls.map((c) => c.messageId).sort()).toEqual(
      [...new Set(h.provider.calls.map((c) => c.messageId))].sort(),
    );
    expect(h.provider.calls).toHaveLength(10);
    for (const call of leaseAtCall) {
      expect(call.owner).toBe(settings.instanceId);
      expect(call.leaseExpiresAt - call.startedAt).toBeGreaterThanOrEqual(1.5 * settings.providerTimeoutMs);
    }
    expect(await job(id)).toMatchObject({ status: 'completed' });
    expect(Number((await job(id)).sent_count)).toBe(10);
    expect(await h.wallet(acc)).toBe(1000 - 10 * 5);
  });

  it('a replica whose lease ran out during a call (another took the job) sends nothing more and writes nothing', async () => {
    const acc = await h.account({ wallet: 1000 });
    const id = await leasedJob(acc, 3);
    // The first call outlasts the lease (a stalled replica); meanwhile another replica takes the job.
    h.provider.callMs = settings.dispatchLeaseMs + 1000;
    onCall = async (n) => {
      if (n === 1)
        await h.uow.manager.query("UPDATE bulk_jobs SET lease_owner = 'rep_other', lease_expires_at = ? WHERE id = ?", [
          clock.now() + 60_000,
          id,
        ]);
    };
    expect(await runnerOf(id, acc, 3).run()).toBe('lost');
    expect(h.provider.calls).toHaveLength(1);
    expect(await job(id)).toMatchObject({ status: 'running', lease_owner: 'rep_other' });
    expect(Number((await job(id)).sent_count)).toBe(0);
    const rows = await h.uow.manager.query('SELECT status FROM bulk_rows WHERE job_id = ? ORDER BY idx', [id]);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['pending', 'pending', 'pending']);
  });
});

function recipientOf(input: unknown): string {
  if (typeof input === 'object' && input !== null && 'to' in input && typeof input.to === 'string') return input.to;
  throw new Error('a row without `to`');
}
