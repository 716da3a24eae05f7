import { request, IncomingMessage } from 'node:http';
import { parse } from 'csv-parse/sync';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';
import { createTestApp, REQUEST_ID_RE, TestApp, waitFor } from '../support/app';
import { BULK_TEST_ENV_PATIENT, ds, post, rejectedPhone, sms, waitStatus } from '../support/bulk-helpers';

const HEADER = [
  'rowIndex',
  'to',
  'channel',
  'status',
  'messageId',
  'errorCode',
  'errorMessage',
  'sentAt',
  'deliveryStatus',
  'deliveredAt',
  'encoding',
  'segments',
];

interface RowJson {
  index: number;
  to: string | null;
  channel: string | null;
  status: string;
  messageId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  sentAt: string | null;
  deliveryStatus: string | null;
  deliveredAt: string | null;
  encoding: string | null;
  segments: number | null;
}

/** GET /rows.csv over a raw connection: the status, headers, body, and whether the response ended properly. */
function rawGet(
  t: TestApp,
  key: string,
  path: string,
): Promise<{
  status: number | null;
  headers: IncomingMessage['headers'];
  body: string;
  complete: boolean;
  error: string | null;
}> {
  return new Promise((resolve) => {
    const req = request(new URL(path, t.baseUrl), { headers: { 'X-API-Key': key } });
    req.on('error', (err) => resolve({ status: null, headers: {}, body: '', complete: false, error: err.message }));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('error', () => undefined);
      res.on('close', () =>
        resolve({ status: res.statusCode ?? null, headers: res.headers, body, complete: res.complete, error: null }),
      );
    });
    req.end();
  });
}

describe('Bulk rows CSV export (e2e)', () => {
  let t: TestApp;
  // Pages of 3 rows, so small jobs span several pages (and end exactly on a page boundary).
  beforeAll(async () => {
    t = await createTestApp({ env: { ...BULK_TEST_ENV_PATIENT, BULK_EXPORT_PAGE_ROWS: '3' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const csv = (key: string, jobId: string) =>
    t.http().get(`/api/v2/messages/bulk/${jobId}/rows.csv`).set('X-API-Key', key);
  const jsonRows = async (key: string, jobId: string): Promise<RowJson[]> => {
    const res = await t.http().get(`/api/v2/messages/bulk/${jobId}/rows?limit=1000`).set('X-API-Key', key);
    expect(res.status).toBe(200);
    return res.body.data.rows;
  };
  const asRecord = (r: RowJson) => [
    String(r.index),
    r.to ?? '',
    r.channel ?? '',
    r.status,
    r.messageId ?? '',
    r.errorCode ?? '',
    r.errorMessage ?? '',
    r.sentAt ?? '',
    r.deliveryStatus ?? '',
    r.deliveredAt ?? '',
    r.encoding ?? '',
    r.segments === null ? '' : String(r.segments),
  ];

  it('a sent job: header row, every row across pages in row order, exactly what the JSON report says; file headers', async () => {
    const acc = await t.createAccount();
    const failing = rejectedPhone();
    const messages = [sms(), sms(), sms(failing), sms(), sms(), sms(), sms()];
    const res = await post(t, acc.key, { name: 'export', messagesPerSecond: 10, messages });
    expect(res.status).toBe(202);
    await waitStatus(t, acc.key, res.body.id, ['completed'], 30000);

    const got = await csv(acc.key, res.body.id);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(got.headers['content-disposition']).toBe(`attachment; filename="bulk-${res.body.id}-rows.csv"`);
    expect(got.text.startsWith(`${HEADER.join(',')}\r\n`)).toBe(true);
    expect(got.text.endsWith('\r\n')).toBe(true);
    const records: string[][] = parse(got.text);
    expect(records[0]).toEqual(HEADER);
    const expected = await jsonRows(acc.key, res.body.id);
    expect(records.slice(1)).toEqual(expected.map(asRecord));
    // 7 rows over pages of 3; sent rows carry their message and time, the provider's refusal its code.
    expect(records.slice(1).map((r) => r[0])).toEqual(['0', '1', '2', '3', '4', '5', '6']);
    expect(records[1]).toEqual([
      '0',
      messages[0].to,
      'local_sms',
      'sent',
      expect.stringMatching(/^msg_/),
      '',
      '',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      'sent',
      '',
      'gsm7',
      '1',
    ]);
    expect(records[3]).toMatchObject({
      1: failing,
      3: 'failed',
      4: expect.stringMatching(/^msg_/),
      5: expect.stringMatching(/^[A-Z_]+$/),
    });
    // HEAD: the same headers, no body.
    const head = await t.http().head(`/api/v2/messages/bulk/${res.body.id}/rows.csv`).set('X-API-Key', acc.key);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(head.text ?? '').toBe('');
  });

  it('delivery receipts show on sent rows: delivered (with its time), read, undelivered; failed rows have none', async () => {
    const acc = await t.createAccount();
    const failing = rejectedPhone();
    const res = await post(t, acc.key, {
      name: 'receipts',
      messagesPerSecond: 10,
      messages: [sms(), sms(), sms(), sms(), sms(failing)],
    });
    expect(res.status).toBe(202);
    await waitStatus(t, acc.key, res.body.id, ['completed'], 30000);
    const before = await jsonRows(acc.key, res.body.id);
    expect(before.map((r) => [r.status, r.deliveryStatus, r.deliveredAt])).toEqual([
      ...Array(4).fill(['sent', 'sent', null]),
      ['failed', null, null],
    ]);
    const at = Date.now();
    const iso = new Date(at).toISOString();
    const receipt = (id: string | null, status: 'delivered' | 'read' | 'failed') => ({
      providerMessageId: `sbx_${id}`,
      status,
      providerStatus: status,
      errorCode: status === 'failed' ? ('UNDELIVERED' as const) : null,
      providerErrorCode: null,
      at,
    });
    await t.app
      .get<ReceiptIntake>(RECEIPT_INTAKE)
      .accept([
        receipt(before[0].messageId, 'delivered'),
        receipt(before[1].messageId, 'read'),
        receipt(before[2].messageId, 'failed'),
      ]);
    const after = await jsonRows(acc.key, res.body.id);
    expect(after.map((r) => [r.status, r.deliveryStatus, r.deliveredAt])).toEqual([
      ['sent', 'delivered', iso],
      ['sent', 'read', iso],
      ['sent', 'undelivered', null],
      ['sent', 'sent', null],
      ['failed', null, null],
    ]);
    const records: string[][] = parse((await csv(acc.key, res.body.id)).text);
    expect(records.slice(1).map((r) => [r[8], r[9]])).toEqual(
      after.map((r) => [r.deliveryStatus ?? '', r.deliveredAt ?? '']),
    );
  });

  it('quotes commas, quotes and newlines, keeps Arabic, neutralises formulas but not phone numbers (a job ending on a page boundary)', async () => {
    const acc = await t.createAccount();
    const hyperlink = '=HYPERLINK("http://evil.test/?q=1","click")';
    const tos = [
      '+966501234567',
      'a,b',
      'say "hi"',
      'line1\nline2',
      hyperlink,
      'مرحبا بكم',
      '@SUM(A1)',
      '-2+3',
      '+1 (555) 0100',
    ];
    const res = await post(t, acc.key, {
      messagesPerSecond: 10,
      messages: tos.map((to) => sms(to, 'نص عربي, "مقتبس"')),
    });
    expect(res.status).toBe(202);
    // Every row but the first is invalid: the job is rejected, its rows keep the validator's messages.
    await waitStatus(t, acc.key, res.body.id, ['rejected']);

    const got = await csv(acc.key, res.body.id);
    expect(got.status).toBe(200);
    const records: string[][] = parse(got.text);
    expect(records).toHaveLength(1 + tos.length);
    expect(records.slice(1).map((r) => r[1])).toEqual([
      '+966501234567',
      'a,b',
      'say "hi"',
      'line1\nline2',
      `'${hyperlink}`,
      'مرحبا بكم',
      "'@SUM(A1)",
      "'-2+3",
      "'+1 (555) 0100",
    ]);
    // The formula is quoted text in the file itself, not something a spreadsheet evaluates.
    expect(got.text).toContain(`"'=HYPERLINK(""http://evil.test/?q=1"",""click"")"`);
    expect(got.text).not.toMatch(/(^|,)=HYPERLINK/m);
    const byIndex = (i: number) => records[i + 1];
    expect(byIndex(0).slice(3)).toEqual(['cancelled', '', '', '', '', '', '', '', '']);
    expect(byIndex(5)).toEqual([
      '5',
      'مرحبا بكم',
      'local_sms',
      'invalid',
      '',
      'INVALID_RECIPIENT',
      expect.stringContaining('مرحبا بكم'),
      '',
      '',
      '',
      '',
      '',
    ]);
    expect(byIndex(1)[6]).toContain('a,b');
    // Apart from the neutralised cells, the file says what the JSON report says.
    const expected = (await jsonRows(acc.key, res.body.id)).map(asRecord);
    expect(records.slice(1).map((r) => r.map((cell) => cell.replace(/^'(?=[=@+-])/, '')))).toEqual(expected);
    // UTF-8 on the wire, no byte order mark.
    expect(Buffer.from(got.text, 'utf8').subarray(0, 3).toString('hex')).not.toBe('efbbbf');
  });

  it("404 JOB_NOT_FOUND as JSON for another account's job and an unknown id; 403 without messages:read", async () => {
    const owner = await t.createAccount();
    const other = await t.createAccount();
    const res = await post(t, owner.key, { messagesPerSecond: 10, messages: [sms()] });
    expect(res.status).toBe(202);
    for (const [key, id] of [
      [other.key, res.body.id],
      [owner.key, 'bulk_missing'],
    ]) {
      const got = await csv(key, id);
      expect(got.status).toBe(404);
      expect(got.headers['content-type']).toMatch(/^application\/json/);
      expect(got.headers['content-disposition']).toBeUndefined();
      expect(got.body).toEqual({
        success: false,
        code: 'JOB_NOT_FOUND',
        error: expect.any(String),
        requestId: expect.stringMatching(REQUEST_ID_RE),
      });
    }
    const creator = await t.memberKey(owner.id, ['messages:create']);
    const denied = await csv(creator, res.body.id);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
  });

  it('a failure after the first byte ends the connection without a complete response (no envelope), and the app still serves', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), sms()] });
    await waitStatus(t, acc.key, res.body.id, ['completed']);
    // The job is found (bulk_jobs), then reading its rows fails.
    await ds(t).query('ALTER TABLE bulk_rows RENAME TO bulk_rows_hidden');
    let got: Awaited<ReturnType<typeof rawGet>>;
    try {
      got = await rawGet(t, acc.key, `/api/v2/messages/bulk/${res.body.id}/rows.csv`);
    } finally {
      await ds(t).query('ALTER TABLE bulk_rows_hidden RENAME TO bulk_rows');
    }
    // Either the connection closed before the status line left, or mid-body: never a finished answer.
    expect(got.complete).toBe(false);
    if (got.status !== null) {
      expect(got.status).toBe(200);
      expect(got.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(`${HEADER.join(',')}\r\n`.startsWith(got.body) || got.body.startsWith(`${HEADER.join(',')}\r\n`)).toBe(
        true,
      );
    }
    expect(got.body).not.toContain('"success"');
    const again = await csv(acc.key, res.body.id);
    expect(again.status).toBe(200);
    expect(parse(again.text)).toHaveLength(3);
  });

  describe('backpressure: 40,000 rows of ~500 bytes (20 MB) in pages of 500, loops off', () => {
    let b: TestApp;
    let acc: { key: string };
    let jobId: string;
    beforeAll(async () => {
      const off = { BULK_VALIDATION_TICK_MS: '600000', BULK_DISPATCH_TICK_MS: '600000', BULK_REAPER_TICK_MS: '600000' };
      b = await createTestApp({ env: { ...BULK_TEST_ENV_PATIENT, ...off, BULK_EXPORT_PAGE_ROWS: '500' } });
      acc = await b.createAccount();
      const res = await post(b, acc.key, {
        messagesPerSecond: 10,
        messages: Array.from({ length: 40_000 }, () => sms()),
      });
      expect(res.status).toBe(202);
      jobId = res.body.id;
      await ds(b).query(
        "UPDATE bulk_rows SET status = 'failed', error_code = 'PROVIDER_REJECTED', error_message = ? WHERE job_id = ?",
        ['x'.repeat(450), jobId],
      );
    });
    afterAll(async () => {
      await b.close();
    });

    /**
     * Reads of this job and its rows so far (gauges left out). Only the export reads them by the job's id;
     * the loops that are still on (a sweep over every job) are not counted: on a slow box two such reads
     * fell inside the count (84, not 82).
     */
    let bulkReads = 0;
    beforeAll(() => {
      const uow = b.app.get(UnitOfWork);
      const run = uow.run.bind(uow);
      jest.spyOn(uow, 'run').mockImplementation((stmt) => {
        if (
          /^SELECT\b[\s\S]*FROM bulk_(rows|jobs)\b/.test(stmt.sql) &&
          !stmt.sql.includes('COUNT(') &&
          stmt.params.includes(jobId)
        )
          bulkReads++;
        return run(stmt);
      });
    });
    const statements = () => bulkReads;
    /**
     * Polls until the export stopped reading (no statement for 1 s); returns the count then. (300 ms
     * was too short with three Jest workers on two busy cores: a starved app paused longer between reads.)
     */
    const settled = async () => {
      let last = -1;
      return waitFor(
        async () => {
          const now = statements();
          if (now === last) return now + 1; // (truthy even when 0)
          last = now;
          await new Promise((r) => setTimeout(r, 1000));
          return null;
        },
        { timeoutMs: 20_000, intervalMs: 0, what: 'the export to stop reading' },
      ).then((n) => n - 1);
    };

    /** Opens the export, takes the first bytes, then stops reading; `finish` reads the rest or hangs up. */
    const openPaused = async () => {
      const req = request(new URL(`/api/v2/messages/bulk/${jobId}/rows.csv`, b.baseUrl), {
        headers: { 'X-API-Key': acc.key },
      });
      const res = await new Promise<IncomingMessage>((resolve) => req.on('response', resolve).end());
      expect(res.statusCode).toBe(200);
      let lines = 0;
      res.on('data', (c: Buffer) => {
        for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
      });
      res.pause();
      return {
        readToEnd: () =>
          new Promise<{ lines: number; complete: boolean }>((resolve) =>
            res.on('close', () => resolve({ lines, complete: res.complete })).resume(),
          ),
        hangUp: () => req.destroy(),
      };
    };

    it('a client that stops reading stops the reads (about the socket buffers ahead, not the job); reading on gets every row', async () => {
      // Counted from a quiet app: on a busy box the job's intake may still be reading after its 202.
      const before = await settled();
      const download = await openPaused();
      const whilePaused = (await settled()) - before;
      // 80 pages hold the job; the server stopped after what the socket buffers (a few MB) take.
      expect(whilePaused).toBeLessThan(40);
      const done = await download.readToEnd();
      expect(done).toEqual({ lines: 40_001, complete: true });
      // The job lookup, 80 full pages, and the empty read that ends a job of a whole number of pages.
      expect(statements() - before).toBe(1 + 81);
    });

    it('a client that hangs up mid-file: no more reads, and the app goes on serving', async () => {
      const before = await settled();
      const download = await openPaused();
      const whilePaused = await settled();
      download.hangUp();
      expect(await settled()).toBe(whilePaused);
      expect(whilePaused - before).toBeLessThan(40);
      const again = await b.http().get(`/api/v2/messages/bulk/${jobId}`).set('X-API-Key', acc.key);
      expect(again.status).toBe(200);
    });
  });
});
