import { DataSource } from 'typeorm';
import { SendersService } from '../../src/senders/senders.service';
import { TestApp, waitFor } from '../support/app';
import { senderHelpers, startSendersApp } from '../support/senders-helpers';
import { WebhookReceiver } from '../support/webhook-receiver';
import { accountIdOf } from '../../src/common/account-id';

describe('SMS senders: admin review (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ({ t, receiver } = await startSendersApp());
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const { create, storedRow, callsFor } = senderHelpers(
    () => t,
    () => receiver,
  );

  describe('review (admin) and sender events', () => {
    it('approve: status approved, first approved is default, event with exact headers and body', async () => {
      const acc = await t.createAccount();
      const secret = 'approve-secret-1';
      const created = await create(acc.key, { name: 'Approve1', webhookUrl: receiver.url, webhookSecret: secret });
      const id = created.body.data.smsSender.id as string;
      const before = Date.now();
      const res = await t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({});
      expect(res.status).toBe(200);
      expect(res.body.data.smsSender).toMatchObject({
        id,
        accountId: acc.id,
        name: 'Approve1',
        status: 'approved',
        isDefault: true,
        webhookConfigured: true,
        reason: null,
      });

      const [call] = await waitFor(async () => (callsFor(id).length ? callsFor(id) : null), { what: 'approval event' });
      expect(call.method).toBe('POST');
      expect(call.path).toBe('/hook');
      expect(call.headers['authorization']).toBe(`Bearer ${secret}`);
      expect(call.headers['x-service-event']).toBe('sms_sender.approved');
      expect(call.headers['x-service-delivery-id']).toMatch(/^whd_[0-9a-z]{24}$/);
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.headers['x-api-key']).toBeUndefined();
      expect(call.body).toEqual({
        event: 'sms_sender.approved',
        timestamp: expect.any(String),
        livemode: true,
        data: { smsSender: { id, name: 'Approve1', status: 'approved', isDefault: true }, reason: null },
      });
      const ts = Date.parse((call.body as { timestamp: string }).timestamp);
      expect(ts).toBeGreaterThanOrEqual(before - 5);
      expect(new Date(ts).toISOString()).toBe((call.body as { timestamp: string }).timestamp);

      const senders = t.app.get(SendersService);
      expect(await senders.findApprovedByName(accountIdOf(acc.id), 'approve1')).toEqual({
        id,
        name: 'Approve1',
        type: 'transactional',
      });
      expect(await senders.findDefaultApproved(accountIdOf(acc.id))).toEqual({
        id,
        name: 'Approve1',
        type: 'transactional',
      });

      const again = await t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({});
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, code: 'INVALID_STATE' });
      const rejectApproved = await t.admin('post', `/admin/v1/sms-senders/${id}/reject`).send({ reason: 'late' });
      expect(rejectApproved.status).toBe(409);
      expect(rejectApproved.body.code).toBe('INVALID_STATE');
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders[0]).toMatchObject({
        status: 'approved',
        isDefault: true,
        reviewedAt: expect.any(String),
      });
      // Only the one event was sent.
      const deliveries = await t.http().get('/api/v2/webhooks/deliveries').set('X-API-Key', acc.key);
      expect(deliveries.body.data.deliveries).toHaveLength(1);
      expect(deliveries.body.data.deliveries[0]).toMatchObject({
        event: 'sms_sender.approved',
        status: 'delivered',
        attemptCount: 1,
      });
    });

    it('reject with reason: event sms_sender.rejected carries the reason; the sender cannot send', async () => {
      const acc = await t.createAccount();
      const created = await create(acc.key, {
        name: 'Reject1',
        webhookUrl: receiver.url,
        webhookSecret: 'reject-secret',
      });
      const id = created.body.data.smsSender.id as string;
      const res = await t
        .admin('post', `/admin/v1/sms-senders/${id}/reject`)
        .send({ reason: 'Brand name not verified' });
      expect(res.status).toBe(200);
      expect(res.body.data.smsSender).toMatchObject({
        id,
        status: 'rejected',
        isDefault: false,
        reason: 'Brand name not verified',
      });
      const [call] = await waitFor(async () => (callsFor(id).length ? callsFor(id) : null), {
        what: 'rejection event',
      });
      expect(call.headers['authorization']).toBe('Bearer reject-secret');
      expect(call.headers['x-service-event']).toBe('sms_sender.rejected');
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.body).toEqual({
        event: 'sms_sender.rejected',
        timestamp: expect.any(String),
        livemode: true,
        data: {
          smsSender: { id, name: 'Reject1', status: 'rejected', isDefault: false },
          reason: 'Brand name not verified',
        },
      });
      const senders = t.app.get(SendersService);
      expect(await senders.findApprovedByName(accountIdOf(acc.id), 'Reject1')).toBeNull();
      expect(await senders.findDefaultApproved(accountIdOf(acc.id))).toBeNull();
      const again = await t.admin('post', `/admin/v1/sms-senders/${id}/reject`).send({});
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('INVALID_STATE');
    });

    it('only the first approved sender becomes default; a sender without webhook emits nothing', async () => {
      const acc = await t.createAccount();
      const a = (await create(acc.key, { name: 'FirstOne' })).body.data.smsSender.id as string;
      const b = (await create(acc.key, { name: 'SecondOne' })).body.data.smsSender.id as string;
      expect((await t.admin('post', `/admin/v1/sms-senders/${b}/approve`).send({})).body.data.smsSender.isDefault).toBe(
        true,
      );
      expect((await t.admin('post', `/admin/v1/sms-senders/${a}/approve`).send({})).body.data.smsSender.isDefault).toBe(
        false,
      );
      const senders = t.app.get(SendersService);
      expect(await senders.findDefaultApproved(accountIdOf(acc.id))).toEqual({
        id: b,
        name: 'SecondOne',
        type: 'transactional',
      });
      expect(await senders.findApprovedByName(accountIdOf(acc.id), 'FIRSTONE')).toEqual({
        id: a,
        name: 'FirstOne',
        type: 'transactional',
      });
      const deliveries = await t.http().get('/api/v2/webhooks/deliveries').set('X-API-Key', acc.key);
      expect(deliveries.body.data.deliveries).toEqual([]);
    });

    it('concurrent approvals: one 200, the others 409, exactly one event queued', async () => {
      const acc = await t.createAccount();
      const id = (await create(acc.key, { name: 'Concur', webhookUrl: receiver.url, webhookSecret: 's3cret' })).body
        .data.smsSender.id as string;
      const results = await Promise.all(
        [1, 2, 3].map(() => t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({})),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      const rows = await t.app
        .get(DataSource)
        .query('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE account_id = ?', [acc.id]);
      expect(Number(rows[0].n)).toBe(1);
    });

    it('concurrent approvals of two senders of one account: exactly one default', async () => {
      const acc = await t.createAccount();
      const ids = await Promise.all(
        ['ParA', 'ParB', 'ParC'].map(
          async (name) => (await create(acc.key, { name })).body.data.smsSender.id as string,
        ),
      );
      const results = await Promise.all(
        ids.map((id) => t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({})),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(results.filter((r) => r.body.data.smsSender.isDefault)).toHaveLength(1);
    });

    it('404 for an unknown sender, 401 without the admin token, 400 for a bad reason', async () => {
      const missing = await t.admin('post', '/admin/v1/sms-senders/snd_doesnotexist/approve').send({});
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      const noToken = await t.http().post('/admin/v1/sms-senders/snd_x/approve').send({});
      expect(noToken.status).toBe(401);
      const acc = await t.createAccount();
      const id = (await create(acc.key, { name: 'Reason' })).body.data.smsSender.id as string;
      const bad = await t.admin('post', `/admin/v1/sms-senders/${id}/reject`).send({ reason: 42 });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
      expect((await storedRow(id)).status).toBe('pending');
    });

    it('admin list filters by status', async () => {
      const acc = await t.createAccount();
      const id = (await create(acc.key, { name: 'AdmList' })).body.data.smsSender.id as string;
      const res = await t.admin('get', '/admin/v1/sms-senders?status=pending');
      expect(res.status).toBe(200);
      expect(res.body.data.smsSenders.some((s: { id: string }) => s.id === id)).toBe(true);
      expect(res.body.data.smsSenders.every((s: { status: string }) => s.status === 'pending')).toBe(true);
      expect((await t.admin('get', '/admin/v1/sms-senders?status=nope')).status).toBe(400);
    });
  });
});
