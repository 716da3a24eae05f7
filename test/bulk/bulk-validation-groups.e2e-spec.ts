import { BulkRowRepository } from '../../src/bulk/bulk-row.repository';
import { BulkValidationLoop } from '../../src/bulk/bulk-validation.loop';
import { DomainEvent, EVENT_SINK, EventSink } from '../../src/messaging/events/event-sink';
import { createTestApp, TestApp } from '../support/app';
import { BULK_TEST_ENV_PATIENT, JobJson, post, sms } from '../support/bulk-helpers';

// Many small jobs submitted together are validated in groups (one rows read, one progress UPDATE, one
// queue UPDATE for the group): each job still ends on its own verdict.
describe('Bulk validation of many jobs at once (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The loop is driven by the test: one pass must settle every job submitted before it.
    t = await createTestApp({
      env: {
        ...BULK_TEST_ENV_PATIENT,
        BULK_VALIDATION_TICK_MS: '600000',
        BULK_DISPATCH_TICK_MS: '600000',
        BULK_VALIDATION_CHUNK: '50',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  async function job(key: string, id: string): Promise<JobJson> {
    return (await t.http().get(`/api/v2/messages/bulk/${id}`).set('X-API-Key', key)).body.job as JobJson;
  }

  it('one pass validates every job, valid ones queued, each rejected one with its own reason', async () => {
    const submitted: { key: string; id: string; expect: Partial<JobJson> }[] = [];
    for (let i = 0; i < 20; i++) {
      const acc = await t.createAccount(i === 7 ? { walletBalance: 0 } : {});
      const messages = Array.from({ length: 3 }, () => sms());
      if (i === 3) messages[1] = sms('not a phone');
      const res = await post(t, acc.key, { messagesPerSecond: 5, messages });
      expect(res.status).toBe(202);
      const verdict: Partial<JobJson> =
        i === 3
          ? {
              status: 'rejected',
              errorCode: 'VALIDATION_FAILED',
              counts: { pending: 0, sent: 0, failed: 0, cancelled: 3 },
            }
          : i === 7
            ? { status: 'rejected', errorCode: 'INSUFFICIENT_BALANCE' }
            : { status: 'queued', errorCode: null, counts: { pending: 3, sent: 0, failed: 0, cancelled: 0 } };
      submitted.push({ key: acc.key, id: res.body.id, expect: { validatedCount: 3, ...verdict } });
    }
    // A larger job among them (more rows than a chunk) is validated alone, chunk by chunk.
    const big = await t.createAccount();
    const bigRes = await post(t, big.key, { messagesPerSecond: 5, messages: Array.from({ length: 120 }, () => sms()) });
    submitted.push({ key: big.key, id: bigRes.body.id, expect: { status: 'queued', validatedCount: 120 } });

    // Every job's conclusion is one bulk_job.* event (a group's queue UPDATE: one event per job it moved, one record call).
    const sink = t.app.get<EventSink>(EVENT_SINK);
    const recorded: DomainEvent[][] = [];
    const spy = jest.spyOn(sink, 'record').mockImplementation(async (_tx, events) => void recorded.push([...events]));
    // (Observed, not replaced: the large job's chunk reads.)
    const chunkReads = jest.spyOn(t.app.get(BulkRowRepository), 'payloads');
    let reads: unknown[][] = [];
    try {
      expect(await t.app.get(BulkValidationLoop).runOnce()).toBe(submitted.length);
      reads = [...chunkReads.mock.calls];
    } finally {
      spy.mockRestore();
      chunkReads.mockRestore();
    }
    // The large job was validated alone, chunk by chunk, not in a group with the small ones.
    expect(reads).toEqual([
      [bigRes.body.id, 0, 50],
      [bigRes.body.id, 50, 50],
      [bigRes.body.id, 100, 50],
    ]);
    for (const s of submitted) expect(await job(s.key, s.id)).toMatchObject(s.expect);
    const events = recorded.flat().filter((e) => e.type.startsWith('bulk_job.'));
    expect(events.map((e) => (e.data as JobJson).id).sort()).toEqual(submitted.map((s) => s.id).sort());
    for (const e of events) {
      const s = submitted.find((x) => x.id === (e.data as JobJson).id);
      expect(e.type).toBe(`bulk_job.${String(s?.expect.status)}`);
      expect(e.data).toEqual(await job(String(s?.key), String(s?.id)));
    }
    expect(recorded.some((call) => call.filter((e) => e.type === 'bulk_job.queued').length > 1)).toBe(true);
    const bad = submitted[3];
    expect((await job(bad.key, bad.id)).errorMessage).toMatch(/^messages\[1\]: .*\(INVALID_RECIPIENT\)$/);
  });

  it('a group takes up to 16 small jobs even when their rows together exceed one chunk (groups are sized in rows of their own)', async () => {
    // 40 rows each: small (a chunk is 50 here), but no two of them fit one chunk together.
    const submitted: { key: string; id: string }[] = [];
    for (let i = 0; i < 16; i++) {
      const acc = await t.createAccount();
      const res = await post(t, acc.key, { messagesPerSecond: 5, messages: Array.from({ length: 40 }, () => sms()) });
      expect(res.status).toBe(202);
      submitted.push({ key: acc.key, id: res.body.id });
    }
    const sink = t.app.get<EventSink>(EVENT_SINK);
    const recorded: DomainEvent[][] = [];
    const spy = jest.spyOn(sink, 'record').mockImplementation(async (_tx, events) => void recorded.push([...events]));
    try {
      expect(await t.app.get(BulkValidationLoop).runOnce()).toBe(16);
    } finally {
      spy.mockRestore();
    }
    for (const s of submitted) expect(await job(s.key, s.id)).toMatchObject({ status: 'queued', validatedCount: 40 });
    // One group: the 16 jobs queued by one UPDATE, their events in one call.
    const queued = recorded.map((call) => call.filter((e) => e.type === 'bulk_job.queued').length).filter((n) => n > 0);
    expect(queued).toEqual([16]);
  });
});
