import { createMessagingClient, ErrorCode, MessagingClient } from '../../clients/typescript';
import { loadCommittedContract } from '../support/openapi-contract';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';

/**
 * The integrator's view: every public operation called through the typed client generated from the
 * committed document (clients/typescript), with no casts. It must typecheck (`npm run typecheck`),
 * and each answer is checked against the document like the supertest hook does for other suites.
 */
describe('Typed client against the public document (contract)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let client: MessagingClient;
  const contract = loadCommittedContract();
  const seen: string[] = [];

  /** Every answer is checked against the committed document, as the supertest hook does. */
  const checkedFetch = async (req: Request) => {
    const res = await fetch(req);
    const type = res.headers.get('content-type') ?? undefined;
    const body: unknown = type?.includes('json') ? await res.clone().json() : null;
    const problem = contract.check(req.method, req.url, res.status, type, body);
    if (problem) throw new Error(`OpenAPI contract: ${problem}`);
    seen.push(`${req.method} ${new URL(req.url).pathname} ${res.status}`);
    return res;
  };

  beforeAll(async () => {
    t = await createTestApp();
    acc = await t.createAccount({ walletBalance: 100_000 });
    client = createMessagingClient({ baseUrl: t.baseUrl, apiKey: acc.key, fetch: checkedFetch });
  });
  afterAll(() => t.close());

  /** What an integrator writes: a switch on the typed error code. */
  function explain(code: ErrorCode): string {
    switch (code) {
      case 'INSUFFICIENT_BALANCE':
        return 'top up';
      case 'RATE_LIMITED':
        return 'retry later';
      case 'UNAUTHORIZED':
        return 'check the key';
      default:
        return code;
    }
  }

  it('account, messages and verification', async () => {
    const account = await client.GET('/api/v2/account');
    expect(account.data?.data.walletBalance).toBe(100_000);

    const sent = await client.POST('/api/v2/messages/send', {
      body: {
        to: '+966501234567',
        channel: 'local_sms',
        messageType: 'free_text',
        content: { text: 'Hello from the typed client' },
      },
    });
    expect(sent.response.status).toBe(201);
    const message = sent.data?.data.messages[0];
    expect(message?.status).toBe('sent');

    const bad = await client.POST('/api/v2/messages/send', {
      body: { to: 'not a phone', channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } },
    });
    expect(bad.error?.code).toBe('INVALID_RECIPIENT');
    expect(explain(bad.error!.code)).toBe('INVALID_RECIPIENT');

    const list = await client.GET('/api/v2/messages', { params: { query: { limit: 10, channel: 'local_sms' } } });
    expect(list.data?.data.messages.length).toBe(1);
    const one = await client.GET('/api/v2/messages/{id}', { params: { path: { id: message!.id } } });
    expect(one.data?.data.id).toBe(message!.id);
    const missing = await client.GET('/api/v2/messages/{id}', { params: { path: { id: 'msg_missing' } } });
    expect(missing.error?.code).toBe('NOT_FOUND');

    const later = await client.POST('/api/v2/messages/send', {
      body: {
        to: '+966501234570',
        channel: 'local_sms',
        messageType: 'free_text',
        content: { text: 'Later' },
        scheduleAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    const scheduledId = later.data!.data.messages[0].id;
    const cancelled = await client.POST('/api/v2/messages/{id}/cancel', { params: { path: { id: scheduledId } } });
    expect(cancelled.data?.data.message).toMatchObject({ id: scheduledId, status: 'cancelled', cost: 0 });
    const again = await client.POST('/api/v2/messages/{id}/cancel', { params: { path: { id: scheduledId } } });
    expect(again.error?.code).toBe('INVALID_STATE');

    const code = await client.POST('/api/v2/verification/send', {
      body: { to: '+966501234568', channel: 'local_sms' },
    });
    expect(code.response.status).toBe(201);
    const verificationId = code.data!.data.verificationId;
    const check = await client.POST('/api/v2/verification/check', { body: { verificationId, code: '000000' } });
    expect(check.response.status).toBe(200);
    expect(check.data?.data.status).toBe('pending');
    expect(check.data?.data.valid).toBe(false);
    const stats = await client.GET('/api/v2/verification/stats', { params: { query: { days: 2 } } });
    expect(stats.data?.data.days.map((d) => d.sent)).toEqual([0, 1]);
  });

  it("the account's usage", async () => {
    const usage = await client.GET('/api/v2/account/usage', { params: { query: { granularity: 'month' } } });
    expect(usage.response.status).toBe(200);
    expect(usage.data?.data.granularity).toBe('month');
    expect(Object.keys(usage.data?.data.totals ?? {}).sort()).toEqual(['cost', 'messages', 'parts']);
  });

  it("the fraud guard's blocks", async () => {
    const blocks = await client.GET('/api/v2/verification/fraud-blocks', { params: { query: { active: true } } });
    expect(blocks.data?.data.blocks).toEqual([]);
    const lift = await client.DELETE('/api/v2/verification/fraud-blocks/{id}', {
      params: { path: { id: 'frb_missing' } },
    });
    expect(lift.error?.code).toBe('NOT_FOUND');
  });

  it('templates, media, SMS senders and official senders', async () => {
    const created = await client.POST('/api/v2/templates', {
      body: { name: 'typed_client_order', category: 'sms', subType: 'utility', content: 'Order {{1}} shipped' },
    });
    expect(created.error).toBeUndefined();
    expect(created.response.status).toBe(201);
    const id = created.data!.data.template.id;
    const got = await client.GET('/api/v2/templates/{id}', { params: { path: { id } } });
    expect(got.data?.data.name).toBe('typed_client_order');
    const page = await client.GET('/api/v2/templates', { params: { query: { category: 'sms', limit: 5 } } });
    expect(page.data?.data.templates.some((tpl) => tpl.id === id)).toBe(true);
    const dup = await client.POST('/api/v2/templates', {
      body: { name: 'typed_client_order', category: 'sms', subType: 'utility', content: 'Again' },
    });
    expect(dup.error?.code).toBe('TEMPLATE_EXISTS');

    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const upload = await client.POST('/api/v2/templates/media', {
      body: { file: new Blob([png], { type: 'image/png' }) },
      bodySerializer: (body) => {
        const form = new FormData();
        if (body.file) form.append('file', body.file, 'header.png');
        return form;
      },
    });
    // A one-pixel header is too small to be a real PNG for the sniffer: either way the answer is typed.
    if (upload.data) expect(upload.data.data.mimeType).toBe('image/png');
    else expect(upload.error?.code).toBe('VALIDATION_ERROR');

    const sender = await client.POST('/api/v2/sms-senders', { body: { name: 'TypedCo' } });
    expect(sender.data?.data.smsSender.status).toBe('pending');
    const senders = await client.GET('/api/v2/sms-senders');
    expect(senders.data?.data.smsSenders.map((s) => s.name)).toContain('TypedCo');
    // Still pending: the typed error answer of the default switch.
    const notYet = await client.POST('/api/v2/sms-senders/{id}/default', {
      params: { path: { id: sender.data!.data.smsSender.id } },
    });
    expect(notYet.error?.code).toBe('INVALID_STATE');
    const official = await client.GET('/api/v2/chatapp/official-senders');
    expect(official.data?.data.officialSenders[0]?.isPlatform).toBe(true);
  });

  it('bulk jobs', async () => {
    const job = await client.POST('/api/v2/messages/bulk', {
      params: { header: { 'Idempotency-Key': 'typed-client-job-1' } },
      body: {
        messagesPerSecond: 10,
        messages: [
          { to: '+966501234569', channel: 'local_sms', messageType: 'free_text', content: { text: 'Bulk hello' } },
        ],
      },
    });
    expect(job.response.status).toBe(202);
    const jobId = job.data!.id;
    const read = await client.GET('/api/v2/messages/bulk/{jobId}', { params: { path: { jobId } } });
    expect(read.data?.job.id).toBe(jobId);
    const rows = await client.GET('/api/v2/messages/bulk/{jobId}/rows', { params: { path: { jobId } } });
    expect(rows.response.status).toBe(200);
    const jobs = await client.GET('/api/v2/messages/bulk');
    expect(jobs.response.status).toBe(200);
    // The CSV report: a text body (parseAs), typed as a string by the document.
    const csv = await client.GET('/api/v2/messages/bulk/{jobId}/rows.csv', {
      params: { path: { jobId } },
      parseAs: 'text',
    });
    expect(csv.response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const csvText: string | undefined = csv.data;
    expect(csvText?.split('\r\n')[0]).toBe(
      'rowIndex,to,channel,status,messageId,errorCode,errorMessage,sentAt,deliveryStatus,deliveredAt,encoding,segments',
    );
    const dryRun = await client.POST('/api/v2/messages/bulk/validate', {
      body: {
        messagesPerSecond: 10,
        messages: [
          { to: '+966501234569', channel: 'local_sms', messageType: 'free_text', content: { text: 'Bulk hello' } },
        ],
      },
    });
    expect(dryRun.data?.data).toMatchObject({
      total: 1,
      valid: 1,
      invalid: 0,
      channels: { local_sms: 1 },
      estimatedDurationSeconds: 1,
    });
    expect(dryRun.data?.data.estimatedCost.currency).toBe('SAR');
    for (const op of ['pause', 'resume', 'cancel', 'retry-failed'] as const) {
      const res = await client.POST(`/api/v2/messages/bulk/{jobId}/${op}`, { params: { path: { jobId } } });
      // Depending on how far the job got, a move is allowed or a typed 409.
      if (res.error) expect(['INVALID_JOB_STATE', 'NOTHING_TO_RETRY']).toContain(res.error.code);
    }
    const unknown = await client.GET('/api/v2/messages/bulk/{jobId}', { params: { path: { jobId: 'job_missing' } } });
    expect(unknown.error?.code).toBe('JOB_NOT_FOUND');
    // The event stream, read as a browser reads it (fetch body reader): the job is final by now.
    await waitFor(async () =>
      ['completed', 'cancelled'].includes(
        (await client.GET('/api/v2/messages/bulk/{jobId}', { params: { path: { jobId } } })).data?.job.status ?? '',
      ),
    );
    const events = await client.GET('/api/v2/messages/bulk/{jobId}/events', {
      params: { path: { jobId } },
      parseAs: 'stream',
    });
    expect(events.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await new Response(events.data as ReadableStream<Uint8Array>).text();
    expect(text).toMatch(/^event: job\ndata: \{.*\}\n\nevent: end\ndata: \{.*\}\n\n$/);
    const missing = await client.GET('/api/v2/messages/bulk/{jobId}/events', {
      params: { path: { jobId: 'job_missing' } },
    });
    expect(missing.error?.code).toBe('JOB_NOT_FOUND');
  });

  it('web-session chats and the web-session webhook', async () => {
    const session = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'sales-line', status: 'ready' });
    expect(session.status).toBe(201);
    const chats = await client.GET('/api/v2/chatapp-web/chats', {
      params: { query: { accountId: 'sales-line', type: 'direct', limit: 5 } },
    });
    expect(chats.data?.data.chats.length).toBe(5);
    const unknown = await client.GET('/api/v2/chatapp-web/chats', {
      params: { query: { accountId: 'no-such-session' } },
    });
    expect(unknown.error?.code).toBe('NOT_FOUND');
    const put = await client.PUT('/api/v2/webhooks/chatapp-web', {
      body: { url: 'https://hooks.example.test/inbound' },
    });
    expect(put.response.status).toBe(200);
    const get = await client.GET('/api/v2/webhooks/chatapp-web');
    expect(get.response.status).toBe(200);
    const rotated = await client.POST('/api/v2/webhooks/chatapp-web/rotate-key');
    expect(rotated.response.status).toBe(200);
    const test = await client.POST('/api/v2/webhooks/chatapp-web/test');
    expect(test.response.status).toBe(202);
    const deliveries = await client.GET('/api/v2/webhooks/deliveries', { params: { query: { limit: 10 } } });
    expect(deliveries.response.status).toBe(200);
    const removed = await client.DELETE('/api/v2/webhooks/chatapp-web');
    expect(removed.response.status).toBe(200);
  });

  it('event endpoints and the delivery log', async () => {
    const created = await client.POST('/api/v2/webhooks/endpoints', {
      body: {
        url: 'https://hooks.example.test/events',
        events: ['message.*', 'bulk_job.completed'],
        description: 'Typed client',
      },
    });
    expect(created.response.status).toBe(201);
    const endpoint = created.data!.data.endpoint;
    expect(endpoint.secret.startsWith('whsec_')).toBe(true);
    const id = endpoint.id;
    const listed = await client.GET('/api/v2/webhooks/endpoints');
    expect(listed.data?.data.endpoints.map((e) => e.id)).toContain(id);
    const one = await client.GET('/api/v2/webhooks/endpoints/{id}', { params: { path: { id } } });
    expect(one.data?.data.endpoint.events).toEqual(['message.*', 'bulk_job.completed']);
    const rotated = await client.POST('/api/v2/webhooks/endpoints/{id}/rotate-secret', { params: { path: { id } } });
    expect(rotated.data?.data.endpoint.secret).not.toBe(endpoint.secret);
    const test = await client.POST('/api/v2/webhooks/endpoints/{id}/test', { params: { path: { id } } });
    expect(test.response.status).toBe(202);
    const deliveryId = test.data!.data.deliveryId;
    const filtered = await client.GET('/api/v2/webhooks/deliveries', {
      params: { query: { endpointId: id, event: 'webhook.test' } },
    });
    expect(filtered.data?.data.deliveries.map((d) => d.id)).toContain(deliveryId);
    const again = await client.POST('/api/v2/webhooks/deliveries/{id}/redeliver', {
      params: { path: { id: deliveryId } },
    });
    expect(again.response.status).toBe(202);
    const unknown = await client.POST('/api/v2/webhooks/deliveries/{id}/redeliver', {
      params: { path: { id: 'whd_missing' } },
    });
    expect(unknown.error?.code).toBe('NOT_FOUND');
    const patched = await client.PATCH('/api/v2/webhooks/endpoints/{id}', {
      params: { path: { id } },
      body: { status: 'disabled' },
    });
    expect(patched.data?.data.endpoint.status).toBe('disabled');
    const badEvents = await client.PATCH('/api/v2/webhooks/endpoints/{id}', {
      params: { path: { id } },
      body: { events: ['no.such.event'] },
    });
    expect(badEvents.error?.code).toBe('VALIDATION_ERROR');
    const disabledTest = await client.POST('/api/v2/webhooks/endpoints/{id}/test', { params: { path: { id } } });
    expect(disabledTest.error?.code).toBe('INVALID_STATE');
    const removed = await client.DELETE('/api/v2/webhooks/endpoints/{id}', { params: { path: { id } } });
    expect(removed.response.status).toBe(200);
    const gone = await client.GET('/api/v2/webhooks/endpoints/{id}', { params: { path: { id } } });
    expect(gone.error?.code).toBe('NOT_FOUND');
  });

  it('geo permissions: read, narrow, and a refused destination', async () => {
    const read = await client.GET('/api/v2/account/geo-permissions');
    expect(read.data?.data.geoPermissions.ownerSelectable).toEqual(['SA']);
    const narrowed = await client.PATCH('/api/v2/account/geo-permissions', { body: { channels: { chatapp: [] } } });
    expect(narrowed.data?.data.geoPermissions.channels.chatapp).toEqual([]);
    const outside = await client.PATCH('/api/v2/account/geo-permissions', { body: { channels: { chatapp: ['US'] } } });
    expect(outside.error?.code).toBe('VALIDATION_ERROR');
    const refused = await client.POST('/api/v2/messages/send', {
      body: { to: '+14155550101', channel: 'local_sms', messageType: 'free_text', content: { text: 'Hi' } },
    });
    expect(refused.error?.code).toBe('DESTINATION_NOT_ALLOWED');
  });

  it('inbound SMS and keyword settings: list, read, change, a refused filter', async () => {
    const inbound = await client.GET('/api/v2/sms/inbound', { params: { query: { limit: 10 } } });
    expect(inbound.data?.data).toEqual({ inboundSms: [], nextCursor: null, hasMore: false });
    const badSince = await client.GET('/api/v2/sms/inbound', { params: { query: { since: 'soon' } } });
    expect(badSince.error?.code).toBe('VALIDATION_ERROR');
    const keywords = await client.GET('/api/v2/account/keywords');
    expect(keywords.data?.data.confirmations.enabled).toBe(false);
    const changed = await client.PATCH('/api/v2/account/keywords', {
      body: { extraKeywords: [{ word: 'BASTA', kind: 'opt_out' }] },
    });
    expect(changed.data?.data.extraKeywords).toEqual([{ word: 'BASTA', kind: 'opt_out' }]);
  });

  it('suppressions: add, list, remove, a refused entry', async () => {
    const added = await client.POST('/api/v2/suppressions', { body: { entries: [{ recipient: '+966501239999' }] } });
    expect(added.data?.data.suppressions).toEqual([
      expect.objectContaining({ recipient: '+966501239999', channel: 'all', scope: 'marketing' }),
    ]);
    const listed = await client.GET('/api/v2/suppressions', { params: { query: { channel: 'all' } } });
    expect(listed.data?.data.suppressions.map((e) => e.recipient)).toContain('+966501239999');
    const removed = await client.DELETE('/api/v2/suppressions/{recipient}', {
      params: { path: { recipient: '+966501239999' } },
    });
    expect(removed.data?.data.removed).toBe(1);
    const bad = await client.POST('/api/v2/suppressions', { body: { entries: [{ recipient: 'nobody' }] } });
    expect(bad.error?.code).toBe('VALIDATION_ERROR');

    // The CSV import: a text body sent as it is (not JSON), typed as a string by the document.
    const csvUpload = (csv: string) =>
      client.POST('/api/v2/suppressions/import', {
        body: csv,
        bodySerializer: (b) => b,
        headers: { 'Content-Type': 'text/csv' },
      });
    const imported = await csvUpload('recipient,channel\r\n+966501239998,local_sms\r\n');
    expect(imported.data?.data).toEqual({ rows: 1, total: 1, imported: 1, alreadyPresent: 0 });
    const badCsv = await csvUpload('recipient\r\nnobody\r\n');
    expect(badCsv.error?.code).toBe('VALIDATION_ERROR');
    const exported = await client.GET('/api/v2/suppressions/export', {
      params: { query: { channel: 'local_sms' } },
      parseAs: 'text',
    });
    expect(exported.response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const exportText: string | undefined = exported.data;
    expect(exportText?.split('\r\n').slice(0, 2)).toEqual([
      'recipient,channel,scope,reason,source,createdAt',
      expect.stringMatching(/^\+966501239998,local_sms,marketing,import,key_/),
    ]);
  });

  it('compliance settings: read, change, a refused value', async () => {
    const read = await client.GET('/api/v2/account/compliance');
    expect(read.data?.data.compliance.marketingWindow).toMatchObject({ start: '09:00', end: '22:00' });
    const changed = await client.PATCH('/api/v2/account/compliance', {
      body: { allowedLinkDomains: ['example.com'], marketingWindow: { start: '08:00' } },
    });
    expect(changed.data?.data.compliance).toMatchObject({ allowedLinkDomains: ['example.com'], source: 'account' });
    const bad = await client.PATCH('/api/v2/account/compliance', { body: { marketingWindow: { end: '07:00' } } });
    expect(bad.error?.code).toBe('VALIDATION_ERROR');
  });

  it('API keys: create a member key, list, revoke', async () => {
    const created = await client.POST('/api/v2/api-keys', {
      body: { name: 'Typed client key', permissions: ['messages:read'] },
    });
    expect(created.response.status).toBe(201);
    const apiKey = created.data!.data.apiKey;
    expect(apiKey.key.startsWith(apiKey.prefix)).toBe(true);
    const member = createMessagingClient({ baseUrl: t.baseUrl, apiKey: apiKey.key });
    expect((await member.GET('/api/v2/messages')).response.status).toBe(200);
    const listed = await client.GET('/api/v2/api-keys', { params: { query: { limit: 10 } } });
    expect(listed.data?.data.apiKeys.map((k) => k.id)).toEqual([apiKey.id, acc.keyId]);
    const invalid = await client.POST('/api/v2/api-keys', { body: { name: 'x', permissions: [] } });
    expect(invalid.error?.code).toBe('VALIDATION_ERROR');
    const self = await client.DELETE('/api/v2/api-keys/{id}', { params: { path: { id: acc.keyId } } });
    expect(self.error?.code).toBe('INVALID_STATE');
    const revoked = await client.DELETE('/api/v2/api-keys/{id}', { params: { path: { id: apiKey.id } } });
    expect(revoked.data?.data.revoked).toBe(true);
    const again = await client.DELETE('/api/v2/api-keys/{id}', { params: { path: { id: apiKey.id } } });
    expect(again.error?.code).toBe('API_KEY_NOT_FOUND');
    expect((await member.GET('/api/v2/messages')).error?.code).toBe('UNAUTHORIZED');
  });

  it('privacy: erasure, audit events and the messages export', async () => {
    const erasure = await client.POST('/api/v2/privacy/erasures', { body: { recipient: '+966501234599' } });
    expect(erasure.response.status).toBe(202);
    const id = erasure.data!.data.erasure.id;
    const read = await client.GET('/api/v2/privacy/erasures/{id}', { params: { path: { id } } });
    expect(read.data?.data.erasure.id).toBe(id);
    const unknown = await client.GET('/api/v2/privacy/erasures/{id}', { params: { path: { id: 'era_missing' } } });
    expect(unknown.error?.code).toBe('NOT_FOUND');
    const bad = await client.POST('/api/v2/privacy/erasures', { body: { recipient: 'nobody' } });
    expect(bad.error?.code).toBe('INVALID_RECIPIENT');
    const audit = await client.GET('/api/v2/audit-events', {
      params: { query: { type: 'privacy.erasure_requested', limit: 5 } },
    });
    expect(audit.data?.data.events.map((e) => e.target)).toContain(id);
    const csv = await client.GET('/api/v2/messages/export.csv', {
      params: { query: { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' } },
      parseAs: 'text',
    });
    expect(csv.response.status).toBe(200);
    const text: string | undefined = csv.data;
    expect(text?.split('\r\n')[0]).toMatch(/^id,createdAt,to,/);
    const badRange = await client.GET('/api/v2/messages/export.csv', {
      params: { query: { from: '2100-01-01T00:00:00Z', to: '2000-01-01T00:00:00Z' } },
    });
    expect(badRange.error?.code).toBe('VALIDATION_ERROR');
  });

  it('test-mode controls, with a test owner key', async () => {
    const created = await client.POST('/api/v2/api-keys', {
      body: { name: 'Typed test owner', mode: 'test', role: 'owner' },
    });
    const test = createMessagingClient({
      baseUrl: t.baseUrl,
      apiKey: created.data!.data.apiKey.key,
      fetch: checkedFetch,
    });
    const live = await client.POST('/api/v2/test/balance/reset');
    expect(live.error?.code).toBe('FORBIDDEN');

    const sent = await test.POST('/api/v2/messages/send', {
      body: { to: '+966501234567', channel: 'local_sms', messageType: 'free_text', content: { text: 'Test mode' } },
    });
    const id = sent.data!.data.messages[0].id;
    const delivered = await test.POST('/api/v2/test/messages/{id}/status', {
      params: { path: { id } },
      body: { status: 'delivered' },
    });
    expect(delivered.data?.data.status).toBe('delivered');
    const stale = await test.POST('/api/v2/test/messages/{id}/status', {
      params: { path: { id } },
      body: { status: 'failed', errorCode: 'EXPIRED' },
    });
    expect(stale.error?.code).toBe('INVALID_STATE');

    const fault = await test.POST('/api/v2/test/faults', {
      body: { kind: 'provider_unavailable', count: 1, channel: 'email' },
    });
    expect(fault.data?.data.fault.kind).toBe('provider_unavailable');
    const cleared = await test.DELETE('/api/v2/test/faults');
    expect(cleared.data?.data.cleared).toBe(1);
    const balance = await test.POST('/api/v2/test/balance/reset');
    expect(balance.data?.data.livemode).toBe(false);

    const sender = await test.POST('/api/v2/sms-senders', { body: { name: 'TypedTest' } });
    const senderId = sender.data!.data.smsSender.id;
    const approved = await test.POST('/api/v2/test/sms-senders/{id}/approve', { params: { path: { id: senderId } } });
    expect(approved.data?.data.smsSender.status).toBe('approved');
    const again = await test.POST('/api/v2/test/sms-senders/{id}/reject', {
      params: { path: { id: senderId } },
      body: { reason: 'Too late' },
    });
    expect(again.error?.code).toBe('INVALID_STATE');
    const inbound = await test.POST('/api/v2/test/inbound/sms', { body: { from: '+966501234567', text: 'HELLO' } });
    expect(inbound.data?.data.inboundSms.to).toBe('TypedTest');

    const tpl = await test.POST('/api/v2/templates', {
      body: { name: 'typed_test_mode', category: 'sms', subType: 'utility', content: 'Order {{1}} shipped' },
    });
    const tplId = tpl.data!.data.template.id;
    const approvedTpl = await test.POST('/api/v2/test/templates/{id}/approve', { params: { path: { id: tplId } } });
    expect(approvedTpl.data?.data.template.status).toBe('approved');
    const rejectedTpl = await test.POST('/api/v2/test/templates/{id}/reject', {
      params: { path: { id: tplId } },
      body: { reason: 'Wrong wording' },
    });
    expect(rejectedTpl.data?.data.template.rejectionReason).toBe('Wrong wording');

    const session = await test.POST('/api/v2/test/web-sessions', { body: { name: 'typed-line' } });
    expect(session.response.status).toBe(201);
    expect(session.data?.data.webSession.provider).toBe('sandbox');
    const web = await test.POST('/api/v2/test/web-sessions/{name}/inbound', {
      params: { path: { name: 'typed-line' } },
      body: { from: '+966501234567', text: 'Hi' },
    });
    expect(web.data?.data.accepted).toBe(true);
  });

  it('a wrong key is a typed 401 on every operation kind', async () => {
    const stranger = createMessagingClient({ baseUrl: t.baseUrl, apiKey: 'msk_not_a_key' });
    const res = await stranger.GET('/api/v2/account');
    expect(res.error?.code).toBe('UNAUTHORIZED');
    expect(explain(res.error!.code)).toBe('check the key');
  });

  it('called every public operation of the document', () => {
    const doc = contract.operationsOf('public');
    const called = new Set(seen.map((s) => s.split(' ').slice(0, 2).join(' ')));
    const missing = doc.filter((op) => ![...called].some((c) => op.matches(c)));
    expect(missing.map((op) => op.name)).toEqual([]);
  });
});
