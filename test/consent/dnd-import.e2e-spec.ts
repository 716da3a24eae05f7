import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { DND_SORT_RUN } from '../../src/consent/dnd/dnd-import.service';
import { dndLookup } from '../../src/consent/dnd.repository';
import { BULK_TEST_ENV_PATIENT, post, rowsReport, waitStatus } from '../support/bulk-helpers';
import { marketingHelpers } from './marketing-helpers';
import { ADMIN_TOKEN, createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { isMysqlRun } from '../support/database';
import { expectEnvelope, expectError } from '../support/envelope';

// Issue 28 item 7: the operator imports the platform's do-not-disturb list (CSV, streamed, replacing
// the list in force at once); marketing to a listed number is refused RECIPIENT_OPTED_OUT for every
// account, unpaid; transactional messages and verification codes still go.

const LISTED = '+966501112201';
const ALSO_LISTED = '+966501112202';
const LOCAL_LISTED = '+966501112203';
const FREE = '+966501112299';

describe('Do-not-disturb list import (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const h = marketingHelpers(
    () => t,
    () => acc,
  );
  const ds = () => t.app.get(DataSource);
  const importCsv = (csv: string, type = 'text/csv') =>
    t.admin('put', '/admin/v1/dnd').set('Content-Type', type).send(csv);
  const state = async () => (await t.admin('get', '/admin/v1/dnd').expect(200)).body.data;
  const rowsOutsideActive = async () =>
    Number(
      (
        await ds().query(
          'SELECT COUNT(*) AS n FROM dnd_numbers WHERE generation <> (SELECT active_generation FROM dnd_state WHERE id = 1)',
        )
      )[0].n,
    );
  const marketing = (to: string, account = acc) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', account.key)
      .send(h.sms(to, 'Sale today', { sender: 'Promo-AD' }));

  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV_PATIENT });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount({ walletBalance: 100_000 });
    // Any hour: sending hours have their own suite.
    expect((await h.compliance({ marketingWindow: { start: '00:00', end: '23:59' } })).status).toBe(200);
    await h.sender('Promo-AD', 'promotional');
  });

  it('imports a CSV (header, E.164, international without +, national), refuses marketing to a listed number for every account, unpaid and unstored', async () => {
    const res = await importCsv(`number\r\n${LISTED}\r\n966501112202\r\n0501112203\r\nnot a number\r\n${LISTED}\r\n`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        numbers: 3,
        invalid: 1,
        invalidLines: [5],
        generation: expect.any(Number),
        importedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        durationMs: expect.any(Number),
      },
    });
    expect(await state()).toEqual({
      numbers: 3,
      generation: res.body.data.generation,
      importedAt: res.body.data.importedAt,
    });

    for (const to of [LISTED, ALSO_LISTED, LOCAL_LISTED]) {
      const refused = await marketing(to);
      expectEnvelope(refused, 400, 'RECIPIENT_OPTED_OUT');
      expect(refused.body.error).toMatch(/do-not-disturb/);
    }
    expect(await h.wallet()).toBe(100_000);
    const log = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key).expect(200);
    expect(log.body.data.messages).toEqual([]);
    expect(await h.messageCount()).toBe(0);

    // Transactional messages and verification codes are not marketing: DND does not stop them.
    await h.sender('Shop', 'transactional');
    const plain = await h.send(h.sms(LISTED, 'Your order shipped', { sender: 'Shop' }));
    expect(plain.status).toBe(201);
    const code = await t
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', acc.key)
      .send({ to: LISTED, channel: 'local_sms' });
    expect(code.status).toBeLessThan(300);
    expect((await marketing(FREE)).status).toBe(201);

    // Platform-wide: another account is refused too, and no account's suppression list shows it.
    const other = await t.createAccount({ walletBalance: 1_000 });
    const otherSender = await t.http().post('/api/v2/sms-senders').set('X-API-Key', other.key).send({
      name: 'Promo-AD',
      type: 'promotional',
    });
    await t.admin('post', `/admin/v1/sms-senders/${otherSender.body.data.smsSender.id}/approve`).send({}).expect(200);
    expectEnvelope(await marketing(LISTED, other), 400, 'RECIPIENT_OPTED_OUT');
    const list = await t.http().get('/api/v2/suppressions').set('X-API-Key', acc.key).expect(200);
    expect(list.body.data.suppressions).toEqual([]);
  });

  it('a bulk marketing row to a listed number settles failed RECIPIENT_OPTED_OUT, unpaid; the others go', async () => {
    await importCsv(`${LISTED}\n`).expect(200);
    const rows = [LISTED, FREE].map((to) => h.sms(to, 'Sale today', { sender: 'Promo-AD' }));
    const created = await post(t, acc.key, { messagesPerSecond: 10, messages: rows });
    expect(created.status).toBe(202);
    const job = await waitStatus(t, acc.key, created.body.id, ['completed']);
    expect(job.counts).toMatchObject({ sent: 1, failed: 1 });
    const report = await rowsReport(() => t)(acc.key, created.body.id, '?status=failed');
    expect(report.rows).toEqual([expect.objectContaining({ errorCode: 'RECIPIENT_OPTED_OUT' })]);
    const paid = 100_000 - (await h.wallet());
    const sent = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key).expect(200);
    expect(sent.body.data.messages.map((m: { to: string }) => m.to)).toEqual([FREE]);
    expect(paid).toBe(sent.body.data.messages[0].cost);
  });

  it('a new import replaces the list at once: the old numbers are free, the new ones refused, the old rows deleted', async () => {
    const first = await importCsv(`${LISTED}\n${ALSO_LISTED}\n`).expect(200);
    expectEnvelope(await marketing(LISTED), 400, 'RECIPIENT_OPTED_OUT');
    const second = await importCsv(`msisdn\n${FREE}\n`).expect(200);
    expect(second.body.data).toMatchObject({ numbers: 1, invalid: 0, invalidLines: [] });
    expect(second.body.data.generation).toBeGreaterThan(first.body.data.generation);
    expect((await marketing(LISTED)).status).toBe(201);
    expectEnvelope(await marketing(FREE), 400, 'RECIPIENT_OPTED_OUT');
    expect(await state()).toMatchObject({ numbers: 1, generation: second.body.data.generation });
    expect(await rowsOutsideActive()).toBe(0);
  });

  it('needs the admin token, CSV, and at least one valid number; a refused import changes nothing', async () => {
    await importCsv(`${LISTED}\n`).expect(200);
    const before = await state();
    expectEnvelope(
      await t.http().put('/admin/v1/dnd').set('Content-Type', 'text/csv').send(`${FREE}\n`),
      401,
      'UNAUTHORIZED',
    );
    expectEnvelope(
      await t
        .http()
        .put('/admin/v1/dnd')
        .set('Authorization', 'Bearer wrong')
        .set('Content-Type', 'text/csv')
        .send(`${FREE}\n`),
      401,
      'UNAUTHORIZED',
    );
    expectEnvelope(await t.http().get('/admin/v1/dnd').set('X-API-Key', acc.key), 401, 'UNAUTHORIZED');
    expectEnvelope(
      await importCsv(JSON.stringify({ numbers: [FREE] }), 'application/json'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectEnvelope(await importCsv(''), 400, 'VALIDATION_ERROR');
    expectEnvelope(await importCsv('number\n\n'), 400, 'VALIDATION_ERROR');
    const garbage = await importCsv(`12\nhello 1\n${'9'.repeat(5000)}\n`);
    expectError(garbage, 400, 'VALIDATION_ERROR', 'No line of the body is a phone number (3 invalid: lines 1, 2, 3)');
    expect(await state()).toEqual(before);
    expect(await rowsOutsideActive()).toBe(0);
    expectEnvelope(await marketing(LISTED), 400, 'RECIPIENT_OPTED_OUT');
  });

  it('an import cut short by the client leaves the list in force and deletes what it had written', async () => {
    await importCsv(`${LISTED}\n`).expect(200);
    const before = await state();
    const server = t.app.getHttpServer() as http.Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'PUT',
      path: '/admin/v1/dnd',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'text/csv', 'Content-Length': '100000000' },
    });
    req.on('error', () => undefined);
    // More than one sorted run, so rows of the new generation exist before the body is cut.
    const numbers = Array.from({ length: DND_SORT_RUN + 1_000 }, (_, i) => `+966502${String(i).padStart(6, '0')}`).join(
      '\n',
    );
    req.write(`${numbers}\n`);
    await waitFor(async () => (await rowsOutsideActive()) > 0, { what: 'rows of the new import' });
    req.destroy();
    await waitFor(async () => (await rowsOutsideActive()) === 0, { what: 'the partial import deleted' });
    expect(await state()).toEqual(before);
    expectEnvelope(await marketing(LISTED), 400, 'RECIPIENT_OPTED_OUT');
    expect((await marketing('+966502000001')).status).toBe(201);
  });

  it('the lookup reads the primary key of the active generation, whatever the list holds', async () => {
    const stmt = dndLookup([LISTED, FREE]);
    if (isMysqlRun()) {
      const rows: Record<string, unknown>[] = await ds().query(`EXPLAIN ${stmt.sql}`, stmt.params);
      const lookup = rows.find((r) => r.table === 'dnd_numbers');
      expect(lookup).toMatchObject({ key: 'PRIMARY' });
      expect(['range', 'ref', 'eq_ref', 'const']).toContain(String(lookup?.type));
    } else {
      const rows: { detail: string }[] = await ds().query(`EXPLAIN QUERY PLAN ${stmt.sql}`, stmt.params);
      const plan = rows.map((r) => r.detail).join(' | ');
      expect(plan).toMatch(
        /SEARCH dnd_numbers USING (PRIMARY KEY|(COVERING )?INDEX sqlite_autoindex_dnd_numbers_1) \(generation=\? AND number=\?\)/,
      );
      expect(plan).not.toMatch(/SCAN dnd_numbers/);
    }
  });
});
