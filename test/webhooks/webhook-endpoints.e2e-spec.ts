import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { SecretBox } from '../../src/common/secret-box';
import { TestApp, waitFor } from '../support/app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { Delivery, endpointHelpers, ENV, headersOf } from '../support/webhook-endpoints-helpers';
import { appWithReceiverPerTest } from '../support/webhooks-helpers';
import { accountIdOf } from '../../src/common/account-id';

// The events the service sends to endpoints (bulk jobs, senders, templates, inbound): webhook-endpoints-events.e2e-spec.ts.
describe('Event endpoints (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const { api, endpoint, settled, record } = endpointHelpers(
    () => t,
    () => receiver,
  );
  appWithReceiverPerTest(ENV, { app: (x) => (t = x), receiver: (x) => (receiver = x) });

  it('CRUD: create shows the secret once (stored sealed), list/get/patch/delete, other accounts see 404', async () => {
    const acc = await t.createAccount();
    const res = await api(acc.key).create({
      url: receiver.url,
      events: ['message.*', 'bulk_job.completed', 'message.*'],
      description: 'Orders',
    });
    expect(res.status).toBe(201);
    const ep = res.body.data.endpoint;
    expect(res.body).toEqual({
      success: true,
      data: {
        endpoint: {
          id: expect.stringMatching(/^wep_/),
          url: receiver.url,
          events: ['message.*', 'bulk_job.completed'],
          description: 'Orders',
          status: 'enabled',
          disabledReason: null,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          livemode: true,
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        },
      },
    });
    expect(Buffer.from(ep.secret.slice(6), 'base64')).toHaveLength(32);
    const [stored] = await t.app
      .get(DataSource)
      .query('SELECT sealed_secret FROM webhook_event_endpoints WHERE id = ?', [ep.id]);
    expect(stored.sealed_secret).not.toContain(ep.secret.slice(6));
    expect(t.app.get(SecretBox).open(stored.sealed_secret)).toBe(ep.secret);

    const { secret: _secret, ...view } = ep;
    expect((await api(acc.key).get(ep.id)).body).toEqual({ success: true, data: { endpoint: view } });
    expect((await api(acc.key).list()).body).toEqual({ success: true, data: { endpoints: [view] } });

    const patched = await api(acc.key).patch(ep.id, {
      events: ['sms.received'],
      description: 'SMS',
      status: 'disabled',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.endpoint).toMatchObject({
      events: ['sms.received'],
      description: 'SMS',
      status: 'disabled',
      disabledReason: null,
    });
    expect((await api(acc.key).get(ep.id)).body.data.endpoint).toMatchObject({
      events: ['sms.received'],
      status: 'disabled',
    });

    const other = await t.createAccount();
    for (const r of [
      await api(other.key).get(ep.id),
      await api(other.key).patch(ep.id, { status: 'enabled' }),
      await api(other.key).del(ep.id),
      await api(other.key).rotate(ep.id),
      await api(other.key).test(ep.id),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    expect((await api(other.key).list()).body.data.endpoints).toEqual([]);

    expect((await api(acc.key).del(ep.id)).body).toEqual({ success: true, data: { deleted: true } });
    expect((await api(acc.key).get(ep.id)).status).toBe(404);
    expect((await api(acc.key).del(ep.id)).status).toBe(404);
  });

  it('member keys get 403 on every endpoint route and on redeliver; validation errors are 400', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    const member = await t.memberKey(acc.id, ['messages:create', 'messages:read']);
    for (const r of [
      await api(member).create({ url: receiver.url, events: ['*'] }),
      await api(member).list(),
      await api(member).get(ep.id),
      await api(member).patch(ep.id, {}),
      await api(member).del(ep.id),
      await api(member).rotate(ep.id),
      await api(member).test(ep.id),
      await api(member).redeliver('whd_x'),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    }
    for (const body of [
      { url: receiver.url, events: ['message.nope'] },
      { url: receiver.url, events: ['nope.*'] },
      { url: receiver.url, events: [] },
      { url: receiver.url },
      { url: receiver.url, events: 'message.*' },
      { url: 'ftp://example.com/x', events: ['*'] },
      { url: receiver.url, events: ['*'], extra: 1 },
    ]) {
      const r = await api(acc.key).create(body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
    expect((await api(acc.key).patch(ep.id, { status: 'paused' })).status).toBe(400);
    expect((await api(acc.key).patch(ep.id, { events: ['bulk_job.*', 'x'] })).status).toBe(400);
  });

  it('test event: Standard Webhooks body and headers, verified with standardwebhooks', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc, ['message.sent']);
    const queued = await api(acc.key).test(ep.id);
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ success: true, data: { deliveryId: expect.stringMatching(/^whd_/) } });
    const d = await settled(acc, queued.body.data.deliveryId);
    expect(d).toMatchObject({ status: 'delivered', event: 'webhook.test', endpointId: ep.id, webhookId: d.id });
    const [call] = receiver.calls;
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers.authorization).toBeUndefined();
    expect(call.headers['webhook-id']).toBe(d.id);
    expect(Math.abs(Number(call.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(String(call.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(ep.secret).verify(call.raw, headersOf(call))).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      livemode: true,
      data: { endpointId: ep.id, message: 'Test event' },
    });
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(call.raw, headersOf(call)),
    ).toThrow();
  });

  it('rotation: two signatures for 24 h (old and new secret both verify), then only the new one', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    const rotated = await api(acc.key).rotate(ep.id);
    expect(rotated.status).toBe(200);
    const secret = rotated.body.data.endpoint.secret as string;
    expect(secret).not.toBe(ep.secret);
    const first = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    expect(first.status).toBe('delivered');
    const call = receiver.calls[0];
    expect(String(call.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(call.raw, headersOf(call))).toBeTruthy();
    expect(new Webhook(ep.secret).verify(call.raw, headersOf(call))).toBeTruthy();

    // The overlap ends: only the new secret signs.
    await t.app
      .get(DataSource)
      .query('UPDATE webhook_event_endpoints SET previous_secret_expires_at = ? WHERE id = ?', [Date.now() - 1, ep.id]);
    await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    const later = receiver.calls[1];
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(secret).verify(later.raw, headersOf(later))).toBeTruthy();
    expect(() => new Webhook(ep.secret).verify(later.raw, headersOf(later))).toThrow();
  });

  it('fan-out: exact names, prefixes and * match; disabled endpoints and other accounts get nothing', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    const [all, messages, completed, disabled] = [
      await endpoint(acc, ['*']),
      await endpoint(acc, ['message.*']),
      await endpoint(acc, ['bulk_job.completed']),
      await endpoint(acc, ['*']),
    ];
    await api(acc.key).patch(disabled.id, { status: 'disabled' });
    const at = Date.parse('2026-01-02T03:04:05.678Z');
    await record([
      { accountId: accountIdOf(acc.id), type: 'message.sent', data: { id: 'msg_1', status: 'sent' }, at },
      { accountId: accountIdOf(acc.id), type: 'bulk_job.queued', data: { id: 'job_1' }, at },
      { accountId: accountIdOf(other.id), type: 'message.sent', data: { id: 'msg_2' }, at },
    ]);
    const list = await waitFor(
      async () => {
        const ds = (await api(acc.key).deliveries('?limit=100')).body.data.deliveries as Delivery[];
        return ds.length === 3 && ds.every((d) => d.status === 'delivered') && ds;
      },
      { what: '3 deliveries' },
    );
    const sent = list.map((d) => `${d.endpointId}:${d.event}`).sort();
    expect(sent).toEqual([`${all.id}:bulk_job.queued`, `${all.id}:message.sent`, `${messages.id}:message.sent`].sort());
    expect(completed.id).toBeDefined();
    const bodies = receiver.calls.map((c) => JSON.parse(c.raw));
    expect(bodies).toContainEqual({
      type: 'message.sent',
      timestamp: '2026-01-02T03:04:05.678Z',
      livemode: true,
      data: { id: 'msg_1', status: 'sent' },
    });
    for (const c of receiver.calls) {
      const secret =
        c.headers['webhook-id'] === list.find((d) => d.endpointId === messages.id)?.webhookId
          ? messages.secret
          : all.secret;
      expect(new Webhook(secret).verify(c.raw, headersOf(c))).toBeTruthy();
    }
    // Filters of the delivery log.
    expect(
      ((await api(acc.key).deliveries(`?endpointId=${messages.id}`)).body.data.deliveries as Delivery[]).map(
        (d) => d.event,
      ),
    ).toEqual(['message.sent']);
    expect(
      ((await api(acc.key).deliveries('?event=bulk_job.queued')).body.data.deliveries as Delivery[]).map(
        (d) => d.endpointId,
      ),
    ).toEqual([all.id]);
    expect((await api(other.key).deliveries()).body.data.deliveries).toEqual([]);
  });

  it('retry schedule: attempts wait as configured with the same webhook-id; redelivery starts a new series with the same webhook-id', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    receiver.respond((_c, n) => (n < 3 ? 500 : 200));
    const d = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    expect(d.status).toBe('delivered');
    expect(d.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 200]);
    const at = d.attempts.map((a) => Date.parse(a.at));
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(40);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(80);
    expect(new Set(receiver.calls.map((c) => c.headers['webhook-id']))).toEqual(new Set([d.id]));
    for (const c of receiver.calls) expect(new Webhook(ep.secret).verify(c.raw, headersOf(c))).toBeTruthy();

    const again = await api(acc.key).redeliver(d.id);
    expect(again.status).toBe(202);
    expect(again.body.data.delivery).toMatchObject({
      event: 'webhook.test',
      endpointId: ep.id,
      webhookId: d.id,
      status: 'pending',
      attemptCount: 0,
      attempts: [],
    });
    const redelivered = await settled(acc, again.body.data.delivery.id);
    expect(redelivered).toMatchObject({ status: 'delivered', webhookId: d.id });
    const last = receiver.calls[receiver.calls.length - 1];
    expect(last.headers['webhook-id']).toBe(d.id);
    expect(last.raw).toBe(receiver.calls[0].raw);
    expect(new Webhook(ep.secret).verify(last.raw, headersOf(last))).toBeTruthy();
    expect((await api(acc.key).redeliver('whd_unknown')).status).toBe(404);
    const other = await t.createAccount();
    expect((await api(other.key).redeliver(d.id)).status).toBe(404);
  });

  it('an endpoint whose last deliveries all failed is disabled with a reason, receives nothing more, and can be enabled again', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    receiver.respond(() => 503);
    for (let i = 0; i < 2; i++) {
      const d = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
      expect(d.status).toBe('failed');
      expect(d.attempts).toHaveLength(3);
    }
    const got = (await api(acc.key).get(ep.id)).body.data.endpoint;
    expect(got).toMatchObject({ status: 'disabled', disabledReason: 'Disabled after 2 consecutive failed deliveries' });
    const refused = await api(acc.key).test(ep.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'INVALID_STATE' });
    const calls = receiver.calls.length;
    await record([{ accountId: accountIdOf(acc.id), type: 'message.sent', data: {}, at: Date.now() }]);
    const enabled = await api(acc.key).patch(ep.id, { status: 'enabled' });
    expect(enabled.body.data.endpoint).toMatchObject({ status: 'enabled', disabledReason: null });
    receiver.respond(() => 200);
    const ok = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    expect(ok.status).toBe('delivered');
    expect(receiver.calls.length).toBe(calls + 1);
    const [row] = await t.app
      .get(DataSource)
      .query('SELECT consecutive_failures FROM webhook_event_endpoints WHERE id = ?', [ep.id]);
    expect(Number(row.consecutive_failures)).toBe(0);
  });
});
