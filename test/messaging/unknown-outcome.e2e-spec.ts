import { DataSource } from 'typeorm';
import { MessageLogRepository } from '../../src/messaging/message-log.repository';
import { SendPipeline } from '../../src/messaging/send-pipeline';
import { ProviderGateway, toOutbound } from '../../src/messaging/provider-gateway';
import { smtpApps } from '../support/smtp-apps';
import { makeDue, TestApp, waitFor } from '../support/app';
import { accountIdOf } from '../../src/common/account-id';

// SMTP, like SMPP, the Cloud API and the Bot API, cannot be asked afterwards whether it received a
// message: a send whose answer was lost (crash, lost lease) must never be sent again blindly.
describe('Unknown outcomes with a provider that has no lookup (e2e)', () => {
  const h = smtpApps();
  const { start, stop, email, receivedCounts, message, wallet } = h;
  const handedOff = async (t: TestApp, id: string) =>
    (await t.app.get(DataSource).query('SELECT handed_off_at FROM messages WHERE id = ?', [id]))[0].handed_off_at;

  it('a send through a provider without lookup is marked handed off before the call; the sandbox (lookup) is not', async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const mail = await t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(email('sara@example.org'));
    expect(mail.status).toBe(201);
    const sms = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966501234567', channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } });
    expect(sms.status).toBe(201);
    expect(mail.body.data.messages[0].status).toBe('sent');
    expect(Number(await handedOff(t, mail.body.data.messages[0].id))).toBeGreaterThan(0);
    expect(await handedOff(t, sms.body.data.messages[0].id)).toBeNull();
  });

  it('a message settled twice (stale copies on two replicas) is failed and refunded once', async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(email('sara@example.org'));
    const { id, cost } = res.body.data.messages[0];
    expect(cost).toBeGreaterThan(0);
    // As a crash leaves it: paid, queued, never handed off.
    await t.app
      .get(DataSource)
      .query("UPDATE messages SET status = 'queued', handed_off_at = NULL, updated_at = 0 WHERE id = ?", [id]);
    const row = (await t.app.get(MessageLogRepository).findOwned(accountIdOf(acc.id), id))!;
    const pipeline = t.app.get(SendPipeline);
    const results = await Promise.all([pipeline.reconcile(row), pipeline.reconcile(row)]);
    expect(results.map((r) => [r.status, r.errorCode])).toEqual([
      ['failed', 'PROVIDER_UNAVAILABLE'],
      ['failed', 'PROVIDER_UNAVAILABLE'],
    ]);
    expect(await message(t, acc.key, id)).toMatchObject({
      status: 'failed',
      errorCode: 'PROVIDER_UNAVAILABLE',
      cost: 0,
    });
    expect(await wallet(t, acc.key)).toBe(1000);
  });

  it('a batch send slower than the stale-send window is not reconciled under its sender (its queued messages are leased)', async () => {
    // Stale single sends are reconciled after PROVIDER_TIMEOUT_MS + SCHEDULED_SEND_LEASE_MS = 2.1 s;
    // this batch of 4 takes ~3.6 s, so without the lease its last messages would be failed mid-batch.
    // (Each answer comes 1.1 s inside the timeout: a loaded CI box must not turn it into a timeout.)
    h.smtp.slowMs = 900;
    const t = await start({ PROVIDER_TIMEOUT_MS: '2000', SCHEDULED_SEND_LEASE_MS: '100' });
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const to = ['p1@example.org', 'p2@example.org', 'p3@example.org', 'p4@example.org'];
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send(email(to as unknown as string));
    expect(res.status).toBe(201);
    expect(res.body.data.messages.map((m: { status: string }) => m.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    for (const m of res.body.data.messages as { id: string }[])
      expect(await message(t, acc.key, m.id)).toMatchObject({ status: 'sent', errorCode: null });
    expect(h.smtp.received).toHaveLength(4);
  });

  it('scheduled: a claim that reached the provider ends DELIVERY_UNCONFIRMED (refunded, not resent); one that did not is sent once', async () => {
    const a = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await a.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const at = new Date(Date.now() + 60_000).toISOString();
    const ids: string[] = [];
    for (const to of ['x@example.org', 'y@example.org']) {
      const res = await a
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send(email(to, { scheduleAt: at }));
      expect(res.status).toBe(201);
      ids.push(res.body.data.messages[0].id);
    }
    const [x, y] = ids;
    await makeDue(a.app.get(DataSource), ids);
    const paid = await wallet(a, acc.key);
    const price = (1000 - paid) / 2;
    expect(price).toBeGreaterThan(0);
    // A replica claimed both, handed x to the SMTP server (which took it), then died before recording;
    // y was claimed but never handed off.
    const row = (await a.app.get(MessageLogRepository).findOwned(accountIdOf(acc.id), x))!;
    await a.app.get(ProviderGateway).send(toOutbound(x, accountIdOf(acc.id), JSON.parse(row.payload!), {}));
    const db = a.app.get(DataSource);
    await db.query(
      "UPDATE messages SET attempts = 1, lease_owner = 'rep_dead', lease_expires_at = ?, handed_off_at = ? WHERE id = ?",
      [Date.now() - 1, Date.now(), x],
    );
    await db.query("UPDATE messages SET attempts = 1, lease_owner = 'rep_dead', lease_expires_at = ? WHERE id = ?", [
      Date.now() - 1,
      y,
    ]);
    await stop(a);

    const b = await start({}, a.databaseUrl);
    await waitFor(
      async () =>
        (await message(b, acc.key, x)).status !== 'scheduled' && (await message(b, acc.key, y)).status !== 'scheduled',
      { what: 'both settled' },
    );
    expect(await message(b, acc.key, x)).toMatchObject({
      status: 'failed',
      errorCode: 'DELIVERY_UNCONFIRMED',
      cost: 0,
    });
    expect(await message(b, acc.key, y)).toMatchObject({ status: 'sent', cost: price });
    expect(receivedCounts()).toEqual({ [x]: 1, [y]: 1 });
    expect(await wallet(b, acc.key)).toBe(paid + price);
  });

  it('a stale copy of a message that another replica has handed off meanwhile does not reach the provider', async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send(email('late@example.org', { scheduleAt: new Date(Date.now() + 60_000).toISOString() }));
    const id = res.body.data.messages[0].id as string;
    const stale = (await t.app.get(MessageLogRepository).findOwned(accountIdOf(acc.id), id))!;
    await t.app.get(DataSource).query('UPDATE messages SET handed_off_at = ? WHERE id = ?', [Date.now(), id]);
    const result = await t.app.get(SendPipeline).sendRecorded(stale, JSON.parse(stale.payload!));
    expect(result).toMatchObject({ id, status: 'scheduled' });
    expect(h.smtp.received).toHaveLength(0);
    // Nor is it failed as "never sent" from that stale copy: it stays open for a settlement that sees the mark.
    const kept = await t.app.get(SendPipeline).reconcile(stale);
    expect(kept).toMatchObject({ id, status: 'scheduled', cost: expect.any(Number) });
    expect(kept.cost).toBeGreaterThan(0);
    const settled = await t.app
      .get(SendPipeline)
      .reconcile((await t.app.get(MessageLogRepository).findOwned(accountIdOf(acc.id), id))!);
    expect(settled).toMatchObject({ id, status: 'failed', errorCode: 'DELIVERY_UNCONFIRMED', cost: 0 });
    expect(await wallet(t, acc.key)).toBe(1000);
  });
});
