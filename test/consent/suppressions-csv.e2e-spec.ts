import { parse } from 'csv-parse/sync';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectEnvelope } from '../support/envelope';
import { privacyHelpers } from '../support/privacy-helpers';

// Issue 28: the suppression list's CSV import (streamed, all or nothing) and export.
describe('Suppression list CSV import and export (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { SUPPRESSION_IMPORT_MAX_ROWS: '5' } });
  });
  afterAll(async () => {
    await t.close();
  });
  const privacy = privacyHelpers(() => t);

  const upload = (key: string, csv: string, type = 'text/csv') =>
    t.http().post('/api/v2/suppressions/import').set('X-API-Key', key).set('Content-Type', type).send(csv);
  const list = (acc: TestAccount, query = '') => t.http().get(`/api/v2/suppressions${query}`).set('X-API-Key', acc.key);
  const download = (key: string, query = '') =>
    t.http().get(`/api/v2/suppressions/export${query}`).set('X-API-Key', key);
  const rowsOf = (csv: string): string[][] => parse(csv) as string[][];

  it('imports a CSV (reason import, the key as source), idempotently; a send to an imported recipient is refused', async () => {
    const acc = await t.createAccount({ walletBalance: 1_000 });
    const csv =
      'recipient,channel,scope\r\n' +
      '0501230001,,all\r\n' +
      'Someone@Example.com,email,\r\n' +
      '+966501230001,all,all\r\n'; // the same entry again: counted once
    const first = await upload(acc.key, csv);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ rows: 3, total: 2, imported: 2, alreadyPresent: 0 });
    const listed = (await list(acc)).body.data.suppressions;
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ recipient: '+966501230001', channel: 'all', scope: 'all', reason: 'import' }),
        expect.objectContaining({ recipient: 'someone@example.com', channel: 'email', scope: 'marketing' }),
      ]),
    );
    expect(listed.every((e: { source: string }) => e.source === acc.keyId)).toBe(true);

    const again = await upload(acc.key, csv);
    expect(again.body.data).toEqual({ rows: 3, total: 2, imported: 0, alreadyPresent: 2 });
    expect((await list(acc)).body.data.suppressions).toEqual(listed);

    const send = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966501230001', channel: 'local_sms', messageType: 'free_text', content: { text: 'Hello' } });
    expectEnvelope(send, 400, 'RECIPIENT_OPTED_OUT');
  });

  it('a bad row is 400 naming its line, and nothing is written; other refusals: 413, 415, 403', async () => {
    const acc = await t.createAccount();
    const bad = await upload(acc.key, 'recipient,channel\n+966501230002,all\nnobody,all\n+966501230003,fax\n');
    expectEnvelope(bad, 400, 'VALIDATION_ERROR');
    expect(bad.body.error).toMatch(/line 3: recipient must be a phone number .*; line 4: channel must be one of/);
    expect(bad.body.errors).toEqual([
      { line: 3, message: expect.any(String) },
      { line: 4, message: expect.any(String) },
    ]);
    expect((await list(acc)).body.data.suppressions).toEqual([]);

    expectEnvelope(await upload(acc.key, 'phone\n+966501230002\n'), 400, 'VALIDATION_ERROR');
    expectEnvelope(await upload(acc.key, 'recipient\n'), 400, 'VALIDATION_ERROR');
    expectEnvelope(await upload(acc.key, ''), 400, 'VALIDATION_ERROR');
    const broken = await upload(acc.key, 'recipient\n"+966501230002\n');
    expectEnvelope(broken, 400, 'VALIDATION_ERROR');
    expect(broken.body.error).toMatch(/line \d+: the file is not valid CSV/);
    const sixRows = 'recipient\n' + Array.from({ length: 6 }, (_, i) => `+96650123100${i}`).join('\n');
    expectEnvelope(await upload(acc.key, sixRows), 413, 'PAYLOAD_TOO_LARGE');
    expectEnvelope(
      await upload(acc.key, 'recipient\n+966501230002\n', 'application/json'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectEnvelope(
      await upload(acc.key, 'recipient\n+966501230002\n', 'text/csv; charset=latin1'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect((await list(acc)).body.data.suppressions).toEqual([]);

    const reader = await t.memberKey(acc.id, ['messages:read']);
    expectEnvelope(await upload(reader, 'recipient\n+966501230002\n'), 403, 'FORBIDDEN');
    const writer = await t.memberKey(acc.id, ['messages:create']);
    expectEnvelope(await download(writer), 403, 'FORBIDDEN');
    expect((await upload(writer, 'recipient\n+966501230002\n')).body.data).toMatchObject({ imported: 1 });
    expect((await download(reader)).status).toBe(200);
  });

  it('exports the list as CSV with the list’s filters, leaves erased entries out, and re-imports', async () => {
    const acc = await t.createAccount();
    await upload(acc.key, 'recipient,channel\n+966501230010,local_sms\n=cmd@example.com,email\n').expect(200);
    await t
      .http()
      .post('/api/v2/suppressions')
      .set('X-API-Key', acc.key)
      .send({ entries: [{ recipient: '+966501230011', scope: 'all' }, { recipient: '+966501230012' }] })
      .expect(200);

    const all = await download(acc.key);
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(all.headers['content-disposition']).toBe('attachment; filename="suppressions.csv"');
    const rows = rowsOf(all.text);
    expect(rows[0]).toEqual(['recipient', 'channel', 'scope', 'reason', 'source', 'createdAt']);
    // Entries added in one call share their time (then they are in id order): compared sorted.
    expect(
      rows
        .slice(1)
        .map((r) => r.slice(0, 5))
        .sort(),
    ).toEqual([
      ["'=cmd@example.com", 'email', 'marketing', 'import', acc.keyId],
      ['+966501230010', 'local_sms', 'marketing', 'import', acc.keyId],
      ['+966501230011', 'all', 'all', 'api', acc.keyId],
      ['+966501230012', 'all', 'marketing', 'api', acc.keyId],
    ]);
    expect(rows.slice(1).every((r) => !Number.isNaN(Date.parse(r[5])))).toBe(true);

    const recipients = async (query: string) =>
      rowsOf((await download(acc.key, query)).text)
        .slice(1)
        .map((r) => r[0])
        .sort();
    expect(await recipients('?reason=api')).toEqual(['+966501230011', '+966501230012']);
    expect(await recipients('?channel=email')).toEqual(["'=cmd@example.com"]);
    expect(await recipients('?recipient=0501230012')).toEqual(['+966501230012']);
    expect(await recipients('?reason=keyword')).toEqual([]);
    expectEnvelope(await download(acc.key, '?recipient=nobody'), 400, 'VALIDATION_ERROR');
    expectEnvelope(await download(acc.key, '?channel=fax'), 400, 'VALIDATION_ERROR');

    // Erased: the entry holds (and is listed without a recipient), but the export leaves it out.
    const erasure = await privacy.requestErasure(acc, '+966501230012').expect(202);
    await privacy.completed(acc, erasure.body.data.erasure.id);
    expect((await list(acc)).body.data.suppressions).toHaveLength(4);
    expect(await recipients('')).toEqual(["'=cmd@example.com", '+966501230010', '+966501230011']);

    // The export is an import file: into another account, as it is.
    const other = await t.createAccount();
    const csv = (await download(acc.key, '?channel=local_sms')).text;
    expect((await upload(other.key, csv)).body.data).toEqual({ rows: 1, total: 1, imported: 1, alreadyPresent: 0 });
    expect((await list(other)).body.data.suppressions).toEqual([
      expect.objectContaining({
        recipient: '+966501230010',
        channel: 'local_sms',
        reason: 'import',
        source: other.keyId,
      }),
    ]);
  });
});
