import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { createTestApp, TestApp } from '../support/app';
import { accountIdOf } from '../../src/common/account-id';
import { SendersService } from '../../src/senders/senders.service';
import { SmsSenderEntity } from '../../src/senders/entities/sms-sender.entity';

/** POST /api/v2/sms-senders/{id}/default: choosing the account's default SMS sender. */
describe('Default SMS sender (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { THROTTLE_LIMIT: '100000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const create = async (key: string, name: string): Promise<string> =>
    (await t.http().post('/api/v2/sms-senders').set('X-API-Key', key).send({ name })).body.data.smsSender.id;
  const approve = (id: string) => t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({});
  const makeDefault = (key: string, id: string) =>
    t.http().post(`/api/v2/sms-senders/${id}/default`).set('X-API-Key', key);
  const defaults = async (accountId: string) =>
    (
      (await t.app
        .get(DataSource)
        .query('SELECT name FROM sms_senders WHERE account_id = ? AND is_default = ? ORDER BY name', [
          accountId,
          1,
        ])) as { name: string }[]
    ).map((r) => r.name);
  const list = async (key: string) =>
    (await t.http().get('/api/v2/sms-senders').set('X-API-Key', key)).body.data.smsSenders as {
      id: string;
      name: string;
      isDefault: boolean;
    }[];

  it('200 with the list entry; the previous default is no longer default; a send without sender uses the new one', async () => {
    const acc = await t.createAccount();
    const first = await create(acc.key, 'FirstCo');
    const second = await create(acc.key, 'SecondCo');
    await approve(first).expect(200);
    await approve(second).expect(200);
    expect(await defaults(acc.id)).toEqual(['FirstCo']);
    const res = await makeDefault(acc.key, second);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        smsSender: {
          id: second,
          name: 'SecondCo',
          status: 'approved',
          type: 'transactional',
          isDefault: true,
          webhookConfigured: false,
          reason: null,
          reviewedAt: expect.any(String),
          createdAt: expect.any(String),
          livemode: true,
        },
      },
    });
    expect((await list(acc.key)).map((s) => [s.name, s.isDefault])).toEqual([
      ['FirstCo', false],
      ['SecondCo', true],
    ]);
    // Setting it again is a no-op answer.
    expect((await makeDefault(acc.key, second)).status).toBe(200);
    expect(await defaults(acc.id)).toEqual(['SecondCo']);
    const sent = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966501234567', channel: 'local_sms', messageType: 'free_text', content: { text: 'Hi' } });
    expect(sent.status).toBe(201);
    const msg = await t.http().get(`/api/v2/messages/${sent.body.data.messages[0].id}`).set('X-API-Key', acc.key);
    expect(msg.body.data.sender).toBe('SecondCo');
  });

  it('409 INVALID_STATE for a pending or rejected sender; the default stays', async () => {
    const acc = await t.createAccount();
    const approved = await create(acc.key, 'Approved1');
    await approve(approved).expect(200);
    const pending = await create(acc.key, 'Pending1');
    const rejected = await create(acc.key, 'Rejected1');
    await t.admin('post', `/admin/v1/sms-senders/${rejected}/reject`).send({}).expect(200);
    for (const id of [pending, rejected]) {
      const res = await makeDefault(acc.key, id);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, code: 'INVALID_STATE' });
    }
    expect(await defaults(acc.id)).toEqual(['Approved1']);
  });

  it("404 for another account's sender or an unknown id; 403 for a member key", async () => {
    const owner = await t.createAccount();
    const other = await t.createAccount();
    const theirs = await create(other.key, 'Theirs1');
    await approve(theirs).expect(200);
    const res = await makeDefault(owner.key, theirs);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect((await makeDefault(owner.key, 'snd_unknown')).status).toBe(404);
    const member = await t.memberKey(other.id, ['messages:create', 'messages:read']);
    expect((await makeDefault(member, theirs)).status).toBe(403);
    expect(await defaults(other.id)).toEqual(['Theirs1']);
  });

  it('10 concurrent calls on 2 senders: exactly one default, and it is one of them', async () => {
    const acc = await t.createAccount();
    const a = await create(acc.key, 'AlphaCo');
    const b = await create(acc.key, 'BetaCo');
    await approve(a).expect(200);
    await approve(b).expect(200);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => makeDefault(acc.key, i % 2 ? a : b)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const now = await defaults(acc.id);
    expect(now).toHaveLength(1);
    expect(['AlphaCo', 'BetaCo']).toContain(now[0]);
    expect((await list(acc.key)).filter((s) => s.isDefault)).toHaveLength(1);
  });

  it("validation's default-sender reads made together are one read, each account its own default (or none)", async () => {
    const [a, b, none] = [await t.createAccount(), await t.createAccount(), await t.createAccount()];
    for (const [acc, name] of [
      [a, 'AlphaCo'],
      [b, 'BetaCo'],
    ] as const) {
      const id = await create(acc.key, name);
      await approve(id).expect(200);
      await makeDefault(acc.key, id).expect(200);
    }
    const senders = t.app.get(SendersService);
    // (A spy that calls through: it counts the reads TypeORM makes.)
    const reads = jest.spyOn(t.app.get<Repository<SmsSenderEntity>>(getRepositoryToken(SmsSenderEntity)), 'findBy');
    const got = await Promise.all([a, b, none, a].map((acc) => senders.findDefaultApproved(accountIdOf(acc.id))));
    expect(got.map((s) => s?.name ?? null)).toEqual(['AlphaCo', 'BetaCo', null, 'AlphaCo']);
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
  });
});
