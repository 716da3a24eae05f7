import { createTestApp, TestAccount, TestApp } from '../support/app';
import { chatappBody, mediaDir } from '../support/templates-helpers';

/** The one answer for an unknown id and for another business account's id (no cross-tenant oracle). */
const NOT_HERE = "providerTemplateId is not a template of this sender's business account at the provider";

describe('Templates: manual links are verified with the (sandbox) provider (e2e)', () => {
  let t: TestApp;
  let a: TestAccount;
  let b: TestAccount;
  let senderA: string;
  let senderB: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { MEDIA_DIR: mediaDir() } });
    [a, b] = await Promise.all([t.createAccount(), t.createAccount()]);
    const sender = async (acc: TestAccount, wabaId: string) =>
      (
        await t
          .admin('post', `/admin/v1/accounts/${acc.id}/official-senders`)
          .send({ displayName: wabaId, wabaId })
          .expect(201)
      ).body.data.officialSender.id as string;
    senderA = await sender(a, 'waba_tenant_a');
    senderB = await sender(b, 'waba_tenant_b');
  });
  afterAll(async () => {
    await t.close();
  });

  const link = (acc: TestAccount, fields: Record<string, unknown>) =>
    t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send({
        category: 'chatapp',
        subType: 'utility',
        creationMode: 'manual_external_id',
        manualVariableCount: 1,
        ...fields,
      });
  const register = async (wabaId: string, name: string, status = 'approved') =>
    (
      await t
        .admin('post', '/admin/v1/sandbox/official-templates')
        .send({ wabaId, name, language: 'en', status, variableCount: 1 })
        .expect(201)
    ).body.data.providerTemplateId as string;
  const sendTemplate = (acc: TestAccount, id: string, to: string) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'chatapp', messageType: 'template', template: { id, variablesIndexed: ['Sara'] } });
  const ownNames = async (acc: TestAccount, name: string) =>
    (
      (await t.http().get(`/api/v2/templates?name=${name}`).set('X-API-Key', acc.key)).body.data.templates as {
        name: string;
      }[]
    ).map((x) => x.name);
  const delivered = async (acc: TestAccount, to: string) =>
    (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}&to=${encodeURIComponent(to)}`)).body.data
      .messages as unknown[];

  it("tenant B cannot link (so cannot send) tenant A's template on the shared platform number", async () => {
    const created = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', a.key)
      .send(chatappBody({ name: 'tenant_a_order' }))
      .expect(201);
    const { id, providerTemplateId } = created.body.data.template;
    await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' }).expect(200);

    const res = await link(b, {
      name: 'tenant_a_order',
      providerTemplateId,
      officialSenderId: 'platform',
      manualVariableCount: 2,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', requestId: expect.any(String) });
    expect(res.body.error).toContain('own official senders');
    expect(await ownNames(b, 'tenant_a_order')).toEqual([]);
    // Without officialSenderId B's templates go to the platform number (B's sender is not its default).
    const implicit = await link(b, { name: 'tenant_a_order', providerTemplateId, manualVariableCount: 2 });
    expect(implicit.status).toBe(400);
  });

  it("tenant B cannot link tenant A's template through its own sender: same answer as an unknown id, nothing stored", async () => {
    const providerTemplateId = await register('waba_tenant_a', 'a_private');
    for (const fields of [
      { name: 'a_private', providerTemplateId },
      { name: 'a_private', providerTemplateId: 'sbxtpl_0000000000000000' },
    ]) {
      const res = await link(b, { ...fields, officialSenderId: senderB });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: NOT_HERE });
    }
    expect(await ownNames(b, 'a_private')).toEqual([]);
    expect((await sendTemplate(b, 'tpl_does_not_exist', '+966501110001')).body.code).toBe('TEMPLATE_NOT_FOUND');
  });

  it('a valid link (own business account, approved, same name) is approved and sends', async () => {
    const providerTemplateId = await register('waba_tenant_a', 'a_linked');
    const res = await link(a, { name: 'a_linked', providerTemplateId, officialSenderId: senderA });
    expect(res.status).toBe(201);
    expect(res.body.data.template).toMatchObject({
      status: 'approved',
      providerTemplateId,
      creationMode: 'manual_external_id',
      officialSenderId: senderA,
      language: 'en',
    });
    const sent = await sendTemplate(a, res.body.data.template.id, '+966501110002');
    expect(sent.status).toBe(201);
    expect(sent.body.data.messages[0].status).toBe('sent');
    expect(await delivered(a, '+966501110002')).toHaveLength(1);
  });

  it('a link to a template the provider has not approved, or under another name or variable count, is refused', async () => {
    const pending = await register('waba_tenant_a', 'a_pending', 'pending');
    const notYet = await link(a, { name: 'a_pending', providerTemplateId: pending, officialSenderId: senderA });
    expect(notYet.status).toBe(400);
    expect(notYet.body.error).toContain('pending');
    const approved = await register('waba_tenant_a', 'a_real_name');
    const renamed = await link(a, { name: 'a_local_name', providerTemplateId: approved, officialSenderId: senderA });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error).toContain('a_real_name');
    const count = await link(a, {
      name: 'a_real_name',
      providerTemplateId: approved,
      officialSenderId: senderA,
      manualVariableCount: 3,
    });
    expect(count.status).toBe(400);
    expect(count.body.error).toContain('manualVariableCount');
    for (const name of ['a_pending', 'a_local_name', 'a_real_name']) expect(await ownNames(a, name)).toEqual([]);
  });
});
