import type { SendOutcome } from '../../src/messaging/send-outcome';
import { SendPipeline } from '../../src/messaging/send-pipeline';
import { SendPacer, WindowSender } from '../../src/messaging/window-sender';
import type { OutboundMessage } from '../../src/providers/provider.types';
import { SandboxProvider } from '../../src/providers/sandbox/sandbox.provider';
import { MessageValidator } from '../../src/messaging/validation/message-validator';
import { TestAccount, TestApp } from '../support/app';
import { PHONE, useMessagingApp } from '../support/messaging-helpers';
import { accountIdOf } from '../../src/common/account-id';

describe('Messaging: send, log, sandbox (e2e): pipeline contract used by bulk (origin.messageId)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const { sms, account, delivered } = useMessagingApp(
    (app) => (t = app),
    (a) => (acc = a),
  );

  const validated = async (accountId: string) => {
    const v = t.app.get(MessageValidator);
    return v.validate(v.createContext(accountIdOf(accountId)), sms(), { bulkRow: true });
  };

  it('the same messageId is sent and paid once; bulkJobId and rowIndex reach the log and the sandbox', async () => {
    const pipeline = t.app.get(SendPipeline);
    const msg = await validated(acc.id);
    const origin = { bulkJobId: 'job_test', rowIndex: 7, messageId: 'msg_fixed_for_row_7' };
    const first = await pipeline.send(accountIdOf(acc.id), msg, origin);
    const again = await pipeline.send(accountIdOf(acc.id), msg, origin);
    expect(first).toEqual({
      id: 'msg_fixed_for_row_7',
      to: PHONE,
      channel: 'local_sms',
      status: 'sent',
      cost: 5,
      errorCode: null,
      providerMessageId: 'sbx_msg_fixed_for_row_7',
      encoding: 'gsm7',
      segments: 1,
    });
    expect(again).toEqual(first);
    expect((await account()).walletBalance).toBe(100_000 - 5);
    expect(await delivered('&bulkJobId=job_test')).toEqual([
      expect.objectContaining({ messageId: 'msg_fixed_for_row_7', bulkJobId: 'job_test', rowIndex: 7 }),
    ]);
    const log = await t.http().get('/api/v2/messages?bulkJobId=job_test').set('X-API-Key', acc.key);
    expect(log.body.data.messages).toEqual([
      expect.objectContaining({ id: 'msg_fixed_for_row_7', bulkJobId: 'job_test', rowIndex: 7, status: 'sent' }),
    ]);
  });

  it('a messageId whose send hit a provider error is paid and sent again on retry', async () => {
    const pipeline = t.app.get(SendPipeline);
    const msg = await validated(acc.id);
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'unavailable', count: 1, accountId: acc.id })
      .expect(201);
    await expect(pipeline.send(accountIdOf(acc.id), msg, { messageId: 'msg_retry_row' })).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
    });
    expect((await account()).walletBalance).toBe(100_000);
    const retried = await pipeline.send(accountIdOf(acc.id), msg, { messageId: 'msg_retry_row' });
    expect(retried).toMatchObject({ id: 'msg_retry_row', status: 'sent', cost: 5 });
    expect((await account()).walletBalance).toBe(100_000 - 5);
    expect(await delivered('')).toHaveLength(1);
  });

  /** A pacer that never waits nor stops (pacing is unit-tested on a fake clock). */
  const unpaced: SendPacer = { before: async () => null, after: () => undefined };
  const kinds = (outcomes: SendOutcome[]) =>
    outcomes.map((o) =>
      o.kind === 'not_attempted'
        ? `${o.reason}${o.paid ? ' (paid)' : ''}`
        : o.kind === 'failed'
          ? `failed ${o.result.errorCode}`
          : o.result.status,
    );
  const logged = async (key: string, jobId: string) =>
    (
      (await t.http().get(`/api/v2/messages?bulkJobId=${jobId}`).set('X-API-Key', key)).body.data.messages as {
        rowIndex: number;
        status: string;
        cost: number;
        errorCode: string | null;
      }[]
    )
      .sort((x, y) => x.rowIndex - y.rowIndex)
      .map((m) => [m.rowIndex, m.status, m.cost, m.errorCode]);

  it('sendWindow: pays what the balance covers in order, the rest not attempted and unpaid; a retry with the same ids sends nothing twice', async () => {
    const windows = t.app.get(WindowSender);
    const a = await t.createAccount({ walletBalance: 10, freeMessages: 1 });
    const msg = await validated(a.id);
    const items = [0, 1, 2, 3, 4].map((i) => ({
      msg,
      origin: { bulkJobId: 'job_many', rowIndex: i, messageId: `msg_many_${a.id}_${i}` },
    }));
    const first = await windows.sendWindow(accountIdOf(a.id), items, unpaced);
    expect(kinds(first)).toEqual(['sent', 'sent', 'sent', 'insufficient_balance', 'insufficient_balance']);
    expect(first.map((o) => (o.kind === 'sent' ? o.result.cost : null))).toEqual([0, 5, 5, null, null]);
    await t.admin('patch', `/admin/v1/accounts/${a.id}`).send({ walletBalance: 100 }).expect(200);
    const again = await windows.sendWindow(accountIdOf(a.id), items, unpaced);
    expect(kinds(again)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
    expect((await t.http().get('/api/v2/account').set('X-API-Key', a.key)).body.data.walletBalance).toBe(90);
    const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${a.id}`)).body.data.messages;
    expect(d.map((x: { rowIndex: number }) => x.rowIndex)).toEqual([0, 1, 2, 3, 4]);
    expect(await logged(a.key, 'job_many')).toEqual([0, 1, 2, 3, 4].map((i) => [i, 'sent', i === 0 ? 0 : 5, null]));
  });

  it('sendWindow: a provider error fails that message (refunded); the later ones are not attempted, stay paid once, and the next window sends them without a second charge', async () => {
    const windows = t.app.get(WindowSender);
    const v = t.app.get(MessageValidator);
    const ok = await validated(acc.id);
    const rejected = await v.validate(v.createContext(accountIdOf(acc.id)), sms('+966500000000'), { bulkRow: true });
    const ids = [0, 1, 2, 3].map((i) => `msg_stop_${acc.id}_${i}`);
    const items = [ok, ok, rejected, ok].map((msg, i) => ({
      msg,
      origin: { bulkJobId: 'job_stop', rowIndex: i, messageId: ids[i] },
    }));
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'rate_limit', count: 1, accountId: acc.id })
      .expect(201);
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'unavailable', count: 1, accountId: acc.id })
      .expect(201);
    // Window 1: a rate limit on the first call (kept paid and open), nothing else tried.
    const first = await windows.sendWindow(accountIdOf(acc.id), items, unpaced);
    expect(kinds(first)).toEqual([
      'rate_limited (paid)',
      'provider_stopped (paid)',
      'provider_stopped (paid)',
      'provider_stopped (paid)',
    ]);
    expect(first[0]).toMatchObject({ retryAfterMs: 1000 });
    expect((await account()).walletBalance).toBe(100_000 - 20);
    expect(await logged(acc.key, 'job_stop')).toEqual([
      [0, 'queued', 5, null],
      [1, 'queued', 5, null],
      [2, 'queued', 5, null],
      [3, 'queued', 5, null],
    ]);
    // Window 2: the provider fails the first call (refunded), the rest waits again, still paid once.
    const second = await windows.sendWindow(accountIdOf(acc.id), items, unpaced);
    expect(kinds(second)).toEqual([
      'failed PROVIDER_UNAVAILABLE',
      'provider_stopped (paid)',
      'provider_stopped (paid)',
      'provider_stopped (paid)',
    ]);
    expect((await account()).walletBalance).toBe(100_000 - 15);
    // Window 3: the failed one is paid again (it never reached the provider), the others are sent as paid; the rejection is per message.
    const third = await windows.sendWindow(accountIdOf(acc.id), items, unpaced);
    expect(kinds(third)).toEqual(['sent', 'sent', 'failed PROVIDER_REJECTED', 'sent']);
    expect(await logged(acc.key, 'job_stop')).toEqual([
      [0, 'sent', 5, null],
      [1, 'sent', 5, null],
      [2, 'failed', 0, 'PROVIDER_REJECTED'],
      [3, 'sent', 5, null],
    ]);
    expect((await account()).walletBalance).toBe(100_000 - 15);
    expect((await delivered('&bulkJobId=job_stop')).map((d) => d.messageId)).toEqual([ids[0], ids[1], ids[3]]);
  });

  it('sandbox: concurrent deliveries are grouped, and a duplicate id among them is delivered once', async () => {
    const sandbox = t.app.get(SandboxProvider);
    const out = (i: number) => ({
      messageId: `msg_group_${acc.id}_${i}`,
      accountId: acc.id,
      channel: 'local_sms' as const,
      to: '+966501234567',
      text: 'hi',
      bulkJobId: 'job_group',
      rowIndex: i,
    });
    const sends = [0, 1, 2, 3, 4, 5, 6, 7, 2, 3].map((i) => sandbox.send(out(i) as OutboundMessage));
    const outcomes = await Promise.all(sends);
    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('sent'));
    expect(outcomes[8]).toEqual(outcomes[2]);
    const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}&bulkJobId=job_group`)).body.data
      .messages;
    expect(d.map((x: { rowIndex: number }) => x.rowIndex).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('SendPipeline throws INSUFFICIENT_BALANCE and SUBSCRIPTION_INACTIVE with nothing sent', async () => {
    const pipeline = t.app.get(SendPipeline);
    const poor = await t.createAccount({ walletBalance: 0 });
    await expect(pipeline.send(accountIdOf(poor.id), await validated(poor.id))).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    const inactive = await t.createAccount({ subscriptionActive: false });
    await expect(pipeline.send(accountIdOf(inactive.id), await validated(inactive.id))).rejects.toMatchObject({
      code: 'SUBSCRIPTION_INACTIVE',
    });
    expect((await t.admin('get', `/admin/v1/sandbox/messages?accountId=${poor.id}`)).body.data.messages).toEqual([]);
  });
});
