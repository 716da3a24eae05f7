import { BULK_TEST_ENV_PATIENT, getJob, post, waitStatus } from '../support/bulk-helpers';
import { SmppFake } from '../providers-fakes/smpp-fake';
import { createTestApp, TestApp, waitFor } from '../support/app';
import { approvedSender, CREDS, uniqueName, uniqueNumber } from '../support/inbound-helpers';

// Issue 28, done when: an Arabic STOP with diacritics through the SMPP fake suppresses the number while
// a bulk job to it is running: its later rows fail RECIPIENT_OPTED_OUT, unpaid, the job's counters
// exact; a single send is refused meanwhile; START lifts it.
describe('Opt-out keywords against running sends (e2e)', () => {
  let smsc: SmppFake;
  let t: TestApp;

  beforeAll(async () => {
    smsc = await new SmppFake(CREDS).start();
    t = await createTestApp({
      env: {
        ...BULK_TEST_ENV_PATIENT,
        PROVIDER_LOCAL_SMS: 'smpp',
        SMPP_URL: smsc.url,
        SMPP_SYSTEM_ID: CREDS.systemId,
        SMPP_PASSWORD: CREDS.password,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.stop();
  });

  it('STOP mid-job fails the later rows unpaid; a single send is refused until START', async () => {
    const acc = await t.createAccount({ walletBalance: 10_000 });
    const name = uniqueName('Kb');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();
    const to = `+${from}`;
    const submitsTo = () => smsc.submits.filter((s) => s.destination === from).length;
    const rowsTotal = 20;
    const messages = Array.from({ length: rowsTotal }, (_, i) => ({
      to,
      channel: 'local_sms',
      messageType: 'free_text',
      content: { text: `update ${i}` },
      sender: name,
    }));
    const res = await post(t, acc.key, { messagesPerSecond: 2, messages });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await waitFor(async () => submitsTo() >= 2, { timeoutMs: 20_000, what: 'the first rows sent' });

    expect(await smsc.inboundSms(from, name, 'تَوَقَّفْ')).toBe(0);
    const refused = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' }, sender: name });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, code: 'RECIPIENT_OPTED_OUT' });

    const job = await waitStatus(t, acc.key, id, ['completed'], 60_000);
    const sent = job.counts.sent;
    expect(sent).toBeGreaterThanOrEqual(2);
    expect(sent).toBeLessThan(rowsTotal);
    expect(job.counts).toMatchObject({ pending: 0, failed: rowsTotal - sent, cancelled: 0 });
    expect(submitsTo()).toBe(sent);
    const failed = await t
      .http()
      .get(`/api/v2/messages/bulk/${id}/rows?status=failed&limit=100`)
      .set('X-API-Key', acc.key);
    expect(failed.status).toBe(200);
    const rows = failed.body.data.rows as { errorCode: string }[];
    expect(rows).toHaveLength(rowsTotal - sent);
    expect(new Set(rows.map((r) => r.errorCode))).toEqual(new Set(['RECIPIENT_OPTED_OUT']));
    // Only the sent rows were paid: the wallet moved by exactly their cost.
    const log = await t.http().get('/api/v2/messages?limit=100').set('X-API-Key', acc.key).expect(200);
    const paid = (log.body.data.messages as { status: string; cost: number }[])
      .filter((m) => m.status !== 'failed')
      .reduce((sum, m) => sum + m.cost, 0);
    const account = await t.http().get('/api/v2/account').set('X-API-Key', acc.key).expect(200);
    expect(account.body.data.walletBalance).toBe(10_000 - paid);
    expect((await getJob(t, acc.key, id)).counts).toEqual(job.counts);

    expect(await smsc.inboundSms(from, name, 'START')).toBe(0);
    const again = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'welcome back' }, sender: name });
    expect(again.status).toBeLessThan(300);
    expect(again.body.success).toBe(true);
  });
});
