import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { MediaOrphanPurger } from '../../src/templates/media/media-orphan.purger';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { png } from '../support/media-fixtures';
import { chatappBody, mediaDir } from '../support/templates-helpers';

const FILE = png(1000);
const HOUR = 3_600_000;

/** Stored header files (fanned out in two-character folders; the upload area excluded). */
function storedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== '.incoming')
    .flatMap((d) => readdirSync(join(dir, d.name)));
}

describe('Templates: header media quota and purge of unused media (e2e)', () => {
  let t: TestApp;
  let dir: string;
  let db: DataSource;
  let shiftMs = 0;

  beforeAll(async () => {
    dir = mediaDir();
    // Room for two files per account.
    t = await createTestApp({
      env: { MEDIA_DIR: dir, MEDIA_QUOTA_BYTES: String(FILE.length * 2 + 10), MEDIA_ORPHAN_HOURS: '24' },
    });
    db = t.app.get(DataSource);
    t.app.get(Clock).now = () => Date.now() + shiftMs;
  });
  afterAll(async () => {
    await t.close();
  });

  const upload = (acc: TestAccount) =>
    t
      .http()
      .post('/api/v2/templates/media')
      .set('X-API-Key', acc.key)
      .attach('file', FILE, { filename: 'logo.png', contentType: 'image/png' });
  const rows = async (accountId: string) =>
    Number((await db.query('SELECT COUNT(*) AS n FROM template_media WHERE account_id = ?', [accountId]))[0].n);

  it('an account at its quota cannot upload (413 MEDIA_QUOTA_EXCEEDED, nothing stored); another account can', async () => {
    const [a, b] = await Promise.all([t.createAccount(), t.createAccount()]);
    expect((await upload(a)).status).toBe(201);
    expect((await upload(a)).status).toBe(201);
    const filesBefore = storedFiles(dir).length;
    const over = await upload(a);
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ success: false, code: 'MEDIA_QUOTA_EXCEEDED', requestId: expect.any(String) });
    expect(await rows(a.id)).toBe(2);
    expect(storedFiles(dir)).toHaveLength(filesBefore);
    // Header media sent with a template counts too.
    const withTemplate = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', a.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'over_quota', headerType: 'image' })))
      .attach('headerMedia', FILE, { filename: 'h.png', contentType: 'image/png' });
    expect(withTemplate.status).toBe(413);
    expect(withTemplate.body.code).toBe('MEDIA_QUOTA_EXCEEDED');
    expect(await rows(a.id)).toBe(2);
    expect((await upload(b)).status).toBe(201);
  });

  it('unused media older than MEDIA_ORPHAN_HOURS is removed (row and file); used or younger media is kept', async () => {
    const acc = await t.createAccount();
    const orphan = (await upload(acc)).body.data.headerAssetId as string;
    const used = (await upload(acc)).body.data.headerAssetId as string;
    const tpl = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'with_header', headerType: 'image', headerAssetId: used }));
    expect(tpl.status).toBe(201);
    const purger = t.app.get(MediaOrphanPurger);
    shiftMs += 23 * HOUR;
    const young = await upload(acc);
    expect(young.status).toBe(413); // two files already: the quota counts unused media until it is purged
    await purger.purge();
    expect(storedFiles(dir)).toEqual(expect.arrayContaining([orphan, used]));

    shiftMs += 2 * HOUR;
    expect(await purger.purge()).toBeGreaterThanOrEqual(1);
    const left: { id: string }[] = await db.query('SELECT id FROM template_media WHERE account_id = ?', [acc.id]);
    expect(left.map((r) => r.id)).toEqual([used]);
    expect(storedFiles(dir)).not.toContain(orphan);
    expect(storedFiles(dir)).toContain(used);
    expect((await t.http().get(`/media/template-headers/${orphan}`)).status).toBe(404);
    // Room again; a fresh upload is young and survives the next pass.
    const fresh = (await upload(acc)).body.data.headerAssetId as string;
    await purger.purge();
    expect(storedFiles(dir)).toContain(fresh);
  });
});
