import { createTestApp, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { ds, INTAKE_TEST_ENV, jobCount, phone, post, sms } from '../support/bulk-helpers';

describe('Bulk intake (e2e): Idempotency-Key', () => {
  let t: TestApp;
  // No background loops needed for the intake rules: jobs stay `validating`.
  beforeAll(async () => {
    t = await createTestApp({ env: INTAKE_TEST_ENV });
  });
  afterAll(async () => {
    await t.close();
  });

  it('400 IDEMPOTENCY_KEY_REQUIRED without header or body key, and no job left', async () => {
    const acc = await t.createAccount();
    expectError(
      await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] }, null),
      400,
      'IDEMPOTENCY_KEY_REQUIRED',
    );
    expect(await jobCount(t, acc.id)).toBe(0);
  });

  it('a body idempotencyKey is used when the header is absent', async () => {
    const acc = await t.createAccount();
    const body = { messagesPerSecond: 1, messages: [sms()], idempotencyKey: 'body-key-1' };
    const a = await post(t, acc.key, body, null);
    const b = await post(t, acc.key, body, null);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.id).toBe(a.body.id);
  });

  it('the header wins over the body idempotencyKey', async () => {
    const acc = await t.createAccount();
    const msgs = [sms()];
    const a = await post(t, acc.key, { messagesPerSecond: 1, messages: msgs, idempotencyKey: 'b1' }, 'h1');
    const b = await post(t, acc.key, { messagesPerSecond: 1, messages: msgs, idempotencyKey: 'b2' }, 'h1');
    expect(b.body.id).toBe(a.body.id);
    const c = await post(t, acc.key, { messagesPerSecond: 1, messages: msgs, idempotencyKey: 'h1' }, 'h2');
    expect(c.status).toBe(202);
    expect(c.body.id).not.toBe(a.body.id);
  });

  it('400 IDEMPOTENCY_KEY_INVALID above 200 characters (header or body), 200 is fine', async () => {
    const acc = await t.createAccount();
    expectError(
      await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] }, 'x'.repeat(201)),
      400,
      'IDEMPOTENCY_KEY_INVALID',
    );
    expectError(
      await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()], idempotencyKey: 'y'.repeat(201) }, null),
      400,
      'IDEMPOTENCY_KEY_INVALID',
    );
    expectError(
      await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()], idempotencyKey: 5 }, null),
      400,
      'IDEMPOTENCY_KEY_INVALID',
    );
    expect((await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] }, 'z'.repeat(200))).status).toBe(202);
    expect(await jobCount(t, acc.id)).toBe(1);
  });

  it('replay with reordered keys returns the same job; a different body is 409 IDEMPOTENCY_CONFLICT', async () => {
    const acc = await t.createAccount();
    const to = phone();
    const first = `{"name":"n","messagesPerSecond":2,"messages":[{"to":"${to}","channel":"local_sms","messageType":"free_text","content":{"text":"a","x":1}}]}`;
    const reordered = `{"messages":[{"content":{"x":1,"text":"a"},"messageType":"free_text","channel":"local_sms","to":"${to}"}],"messagesPerSecond":2,"name":"n","extra":true}`;
    const a = await post(t, acc.key, first, 'same');
    const b = await post(t, acc.key, reordered, 'same');
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.id).toBe(a.body.id);
    expectError(
      await post(t, acc.key, { name: 'n', messagesPerSecond: 3, messages: [sms(to, 'a')] }, 'same'),
      409,
      'IDEMPOTENCY_CONFLICT',
    );
    expectError(
      await post(t, acc.key, { name: 'other', messagesPerSecond: 2, messages: JSON.parse(first).messages }, 'same'),
      409,
      'IDEMPOTENCY_CONFLICT',
    );
    expect(await jobCount(t, acc.id)).toBe(1);
    expect(Number((await ds(t).query('SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = ?', [a.body.id]))[0].n)).toBe(
      1,
    );
  });

  it('keys are compared exactly: case and trailing spaces make different keys', async () => {
    const acc = await t.createAccount();
    const a = await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] }, 'Key-A');
    const b = await post(t, acc.key, { messagesPerSecond: 2, messages: [sms()] }, 'key-a');
    // (HTTP trims header values: the trailing space goes in the body key)
    const c = await post(t, acc.key, { messagesPerSecond: 3, messages: [sms()], idempotencyKey: 'Key-A ' }, null);
    expect([a.status, b.status, c.status]).toEqual([202, 202, 202]);
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
  });

  it('the same key is per account', async () => {
    const a1 = await t.createAccount();
    const a2 = await t.createAccount();
    const body = { messagesPerSecond: 1, messages: [sms()] };
    const x = await post(t, a1.key, body, 'shared');
    const y = await post(t, a2.key, body, 'shared');
    expect(y.status).toBe(202);
    expect(y.body.id).not.toBe(x.body.id);
  });

  it('after the replay window the key may be reused for a new job', async () => {
    const acc = await t.createAccount();
    const a = await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] }, 'old');
    await ds(t).query('UPDATE bulk_jobs SET created_at = created_at - ? WHERE id = ?', [25 * 3_600_000, a.body.id]);
    const b = await post(t, acc.key, { messagesPerSecond: 2, messages: [sms()] }, 'old');
    expect(b.status).toBe(202);
    expect(b.body.id).not.toBe(a.body.id);
    const c = await post(t, acc.key, { messagesPerSecond: 2, messages: [sms()] }, 'old');
    expect(c.status).toBe(409);
  });

  it('20 concurrent identical requests create exactly one job', async () => {
    const acc = await t.createAccount();
    const body = { name: 'race', messagesPerSecond: 5, messages: Array.from({ length: 50 }, () => sms()) };
    const results = await Promise.all(Array.from({ length: 20 }, () => post(t, acc.key, body, 'race-key')));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await jobCount(t, acc.id)).toBe(1);
    const rows = await ds(t).query('SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = ?', [results[0].body.id]);
    expect(Number(rows[0].n)).toBe(50);
  });
});
