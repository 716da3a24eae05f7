import { TemplatesService } from '../../src/templates/templates.service';
import { TestAccount, TestApp } from '../support/app';
import { chatappBody, smsBody, startTemplatesApp, templateRequests } from '../support/templates-helpers';
import { accountIdOf } from '../../src/common/account-id';

describe('Templates: create, read, list (e2e): access, status, listing', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    ({ t, acc } = await startTemplatesApp());
  });
  afterAll(async () => {
    await t.close();
  });

  const { post, get, uniq } = templateRequests(
    () => t,
    () => acc,
  );

  describe('access', () => {
    it('409 TEMPLATE_EXISTS for the same name, category and language; other language is fine', async () => {
      const name = uniq('dup_check');
      expect((await post(chatappBody({ name }))).status).toBe(201);
      const again = await post(chatappBody({ name }));
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, code: 'TEMPLATE_EXISTS' });
      expect((await post(chatappBody({ name, language: 'ar' }))).status).toBe(201);
      expect((await post(smsBody({ name }))).status).toBe(201);
      const other = await t.createAccount();
      expect((await post(chatappBody({ name }), other.key)).status).toBe(201);
    });

    it('concurrent creates of one name: exactly one 201, the others 409', async () => {
      const name = uniq('race_name');
      const results = await Promise.all(Array.from({ length: 5 }, () => post(smsBody({ name }))));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('TEMPLATE_EXISTS');
    });

    it('403 FORBIDDEN when the phone is not verified', async () => {
      const unverified = await t.createAccount({ phoneVerified: false });
      const res = await post(smsBody(), unverified.key);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });

    it('403 FORBIDDEN for a member key without messages:create; messages:read can read', async () => {
      const created = await post(smsBody({ name: uniq('member_read') }));
      const member = await t.memberKey(acc.id, ['messages:read']);
      expect((await post(smsBody({ name: uniq('member_write') }), member)).status).toBe(403);
      expect((await get(created.body.data.template.id, member)).status).toBe(200);
    });

    it("another account's template is 404 NOT_FOUND and invisible to findForSend", async () => {
      const created = await post(smsBody({ name: uniq('private_one') }));
      const other = await t.createAccount();
      const res = await get(created.body.data.template.id, other.key);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND', error: 'Template not found' });
      await expect(
        t.app.get(TemplatesService).findForSend(accountIdOf(other.id), created.body.data.template.id),
      ).resolves.toBeNull();
    });

    it('a default template (admin) is visible to every account, in GET, list and findForSend', async () => {
      const created = await t
        .admin('post', '/admin/v1/templates/defaults')
        .send(smsBody({ name: uniq('platform_default') }));
      expect(created.status).toBe(201);
      const id = created.body.data.template.id;
      for (const a of [acc, await t.createAccount()]) {
        const res = await get(id, a.key);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ id, isDefault: true, status: 'active' });
        const list = await t.http().get('/api/v2/templates?category=sms&limit=500').set('X-API-Key', a.key);
        expect(list.body.data.templates.map((x: { id: string }) => x.id)).toContain(id);
        await expect(t.app.get(TemplatesService).findForSend(accountIdOf(a.id), id)).resolves.toMatchObject({
          id,
          category: 'sms',
          status: 'active',
          content: 'Your code is {{1}}',
          variableCount: 1,
        });
      }
    });
  });

  describe('status changes', () => {
    it('admin moves a pending template to approved, then rejected with a reason', async () => {
      const created = await post(chatappBody({ name: uniq('to_approve') }));
      const id = created.body.data.template.id;
      await expect(t.app.get(TemplatesService).findForSend(accountIdOf(acc.id), id)).resolves.toMatchObject({
        status: 'pending',
      });
      const ok = await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' });
      expect(ok.status).toBe(200);
      expect(ok.body.data.template.status).toBe('approved');
      expect((await get(id)).body.data.status).toBe('approved');
      await expect(t.app.get(TemplatesService).findForSend(accountIdOf(acc.id), id)).resolves.toMatchObject({
        status: 'approved',
        variableCount: 2,
      });
      const rej = await t
        .admin('post', `/admin/v1/templates/${id}/status`)
        .send({ status: 'rejected', reason: 'INVALID_FORMAT' });
      expect(rej.body.data.template).toMatchObject({ status: 'rejected', rejectionReason: 'INVALID_FORMAT' });
    });

    it('admin status: 400 for an unknown status, 404 for an unknown template, 401 without the token', async () => {
      expect((await t.admin('post', '/admin/v1/templates/tpl_nope/status').send({ status: 'approved' })).status).toBe(
        404,
      );
      const created = await post(chatappBody({ name: uniq('bad_status') }));
      const bad = await t
        .admin('post', `/admin/v1/templates/${created.body.data.template.id}/status`)
        .send({ status: 'great' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toContain('status');
      expect(
        (
          await t
            .http()
            .post(`/admin/v1/templates/${created.body.data.template.id}/status`)
            .send({ status: 'approved' })
        ).status,
      ).toBe(401);
    });
  });

  describe('listing', () => {
    it('pages with a cursor, newest first, no duplicates, filters combine', async () => {
      const owner = await t.createAccount();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await post(smsBody({ name: `page_item_${'abcdefg'[i]}` }), owner.key);
        ids.push(res.body.data.template.id);
      }
      await post(chatappBody({ name: 'page_item_chat' }), owner.key);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = `/api/v2/templates?category=sms&name=page_item&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await t.http().get(q).set('X-API-Key', owner.key);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.templates.map((x: { id: string }) => x.id));
        expect(res.body.data.hasMore).toBe(res.body.data.nextCursor !== null);
        cursor = res.body.data.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
      const pending = await t
        .http()
        .get('/api/v2/templates?status=pending&provider=official')
        .set('X-API-Key', owner.key);
      expect(pending.body.data.templates.map((x: { name: string }) => x.name)).toEqual(['page_item_chat']);
    });

    it('400 for limit above 500, a bad filter or a tampered cursor', async () => {
      for (const q of ['limit=501', 'limit=0', 'status=great', 'cursor=abc.def']) {
        const res = await t.http().get(`/api/v2/templates?${q}`).set('X-API-Key', acc.key);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it("another account's cursor is refused", async () => {
      const owner = await t.createAccount();
      for (const n of ['cur_a', 'cur_b']) await post(smsBody({ name: n }), owner.key);
      const first = await t.http().get('/api/v2/templates?limit=1').set('X-API-Key', owner.key);
      const res = await t
        .http()
        .get(`/api/v2/templates?cursor=${encodeURIComponent(first.body.data.nextCursor)}`)
        .set('X-API-Key', acc.key);
      expect(res.status).toBe(400);
    });
  });

  describe('official senders', () => {
    it('lists the platform number then the account senders; a default sender is used for new templates', async () => {
      const owner = await t.createAccount();
      const before = await t.http().get('/api/v2/chatapp/official-senders').set('X-API-Key', owner.key);
      expect(before.status).toBe(200);
      expect(before.body.data.officialSenders).toEqual([
        {
          id: 'platform',
          scope: 'platform',
          isPlatform: true,
          isDefault: true,
          label: expect.any(String),
          phoneNumber: '+966500000001',
          displayName: expect.any(String),
          livemode: true,
        },
      ]);
      const made = await t
        .admin('post', `/admin/v1/accounts/${owner.id}/official-senders`)
        .send({ displayName: 'Acme', phoneNumber: '+966511111111', isDefault: true });
      expect(made.status).toBe(201);
      const sender = made.body.data.officialSender;
      expect(sender).toMatchObject({
        scope: 'account',
        isPlatform: false,
        isDefault: true,
        label: 'Acme (+966511111111)',
        phoneNumber: '+966511111111',
        displayName: 'Acme',
      });
      const after = await t.http().get('/api/v2/chatapp/official-senders').set('X-API-Key', owner.key);
      expect(
        after.body.data.officialSenders.map((s: { id: string; isDefault: boolean }) => [s.id, s.isDefault]),
      ).toEqual([
        ['platform', false],
        [sender.id, true],
      ]);
      const tpl = await post(chatappBody({ name: 'sender_default' }), owner.key);
      expect(tpl.body.data.template).toMatchObject({
        officialSenderId: sender.id,
        isPlatformNumber: false,
        officialSender: sender,
      });
      const onPlatform = await post(chatappBody({ name: 'sender_platform', officialSenderId: 'platform' }), owner.key);
      expect(onPlatform.body.data.template).toMatchObject({
        officialSenderId: 'platform',
        isPlatformNumber: true,
        officialSender: { isPlatform: true, isDefault: false },
      });
      // Another account cannot use it.
      expect((await post(chatappBody({ name: 'sender_stolen', officialSenderId: sender.id }))).status).toBe(400);
    });
  });
});
