import { refusedTargetText } from '../../src/common/net/target-policy';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { jpeg, mp4, pdf, png } from '../support/media-fixtures';
import { chatappBody, mediaDir } from '../support/templates-helpers';

/** Files left in the media dir's incoming area (should be none after every request). */
function incoming(dir: string): string[] {
  try {
    return readdirSync(join(dir, '.incoming'));
  } catch {
    return [];
  }
}

describe('Templates: header media (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let dir: string;
  let files: Server;
  let filesUrl: string;
  const served: Record<string, { type: string; body: Buffer; delayMs?: number; location?: string }> = {};

  beforeAll(async () => {
    dir = mediaDir();
    t = await createTestApp({ env: { MEDIA_DIR: dir, MEDIA_FETCH_TIMEOUT_MS: '500' } });
    acc = await t.createAccount();
    files = createServer((req, res) => {
      const f = served[req.url ?? ''];
      if (!f) return void res.writeHead(404).end();
      if (f.location !== undefined) return void res.writeHead(302, { Location: f.location }).end();
      const send = () => res.writeHead(200, { 'Content-Type': f.type, 'Content-Length': f.body.length }).end(f.body);
      if (f.delayMs) setTimeout(send, f.delayMs).unref();
      else send();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    files.closeAllConnections();
    await new Promise((r) => files.close(r));
    await t.close();
  });

  const upload = (buf: Buffer, filename: string, contentType?: string, key = acc.key) =>
    t
      .http()
      .post('/api/v2/templates/media')
      .set('X-API-Key', key)
      .attach('file', buf, { filename, contentType: contentType ?? 'application/octet-stream' });

  it('upload detects each type from the bytes, then the preview link serves the file', async () => {
    for (const [buf, mime, headerType] of [
      [png(), 'image/png', 'image'],
      [jpeg(), 'image/jpeg', 'image'],
      [mp4(), 'video/mp4', 'video'],
      [pdf(), 'application/pdf', 'document'],
    ] as const) {
      const res = await upload(buf, 'whatever.bin');
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          headerAssetId: expect.stringMatching(/^hma_[0-9a-z]{26}$/),
          headerType,
          mimeType: mime,
          size: buf.length,
          previewUrl: expect.any(String),
          livemode: true,
        },
      });
      const path = new URL(res.body.data.previewUrl).pathname;
      const got = await t
        .http()
        .get(path)
        .buffer(true)
        .parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      expect(got.status).toBe(200);
      expect(got.headers['content-type']).toContain(mime);
      expect(Buffer.compare(got.body as Buffer, buf)).toBe(0);
    }
    expect(incoming(dir)).toEqual([]);
  });

  it('a preview link with an unknown asset id is 404', async () => {
    const res = await t.http().get('/media/template-headers/hma_aaaaaaaaaaaaaaaaaaaaaaaaaa');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('upload then headerAssetId: the template shows headerType, asset id and preview link', async () => {
    const up = await upload(png(), 'logo.png', 'image/png');
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'with_asset', headerAssetId: up.body.data.headerAssetId }));
    expect(res.status).toBe(201);
    expect(res.body.data.template).toMatchObject({
      headerType: 'image',
      headerAssetId: up.body.data.headerAssetId,
      headerPreviewUrl: up.body.data.previewUrl,
      allowsHeaderMediaOverride: true,
      headerValue: null,
    });
  });

  it('bytes that do not match the claimed type: 400 naming the field', async () => {
    const res = await upload(png(), 'photo.jpg', 'image/jpeg');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toContain('image/png');
    expect(incoming(dir)).toEqual([]);
  });

  it('an unsupported type (text, even named .png) is 400', async () => {
    const res = await upload(Buffer.from('just some text, not an image'), 'fake.png', 'image/png');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/unsupported file type/);
  });

  it('bytes too short for the type sniffer (ID3, OggS) are 400 unsupported, upload and multipart alike', async () => {
    for (const bytes of ['ID3', 'OggS']) {
      const up = await upload(Buffer.from(bytes), 'short.mp3');
      expect(up.status).toBe(400);
      expect(up.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(up.body.error).toMatch(/unsupported file type/);
      const created = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .field('payload', JSON.stringify(chatappBody({ name: 'short_media' })))
        .attach('headerMedia', Buffer.from(bytes), { filename: 'short.ogg', contentType: 'application/octet-stream' });
      expect(created.status).toBe(400);
      expect(created.body.error).toMatch(/headerMedia: unsupported file type/);
    }
    expect(incoming(dir)).toEqual([]);
  });

  it('an image over 5 MB is refused with 413 while streaming', async () => {
    const res = await upload(png(5 * 1024 * 1024 + 10), 'big.png', 'image/png');
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(res.body.error).toContain('5 MB');
    expect(incoming(dir)).toEqual([]);
  });

  it('upload without a file is 400', async () => {
    const res = await t.http().post('/api/v2/templates/media').set('X-API-Key', acc.key).field('x', 'y');
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('file');
  });

  it("another account's headerAssetId is refused", async () => {
    const other = await t.createAccount();
    const up = await upload(png(), 'logo.png', 'image/png', other.key);
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'stolen_asset', headerAssetId: up.body.data.headerAssetId }));
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('headerAssetId');
  });

  it('headerType must match the asset kind', async () => {
    const up = await upload(pdf(), 'doc.pdf');
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'wrong_kind', headerType: 'image', headerAssetId: up.body.data.headerAssetId }));
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('headerType');
  });

  it('multipart with headerMedia and a payload JSON string', async () => {
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'multipart_header_media', headerType: 'video' })))
      .attach('headerMedia', mp4(), { filename: 'clip.mp4', contentType: 'video/mp4' });
    expect(res.status).toBe(201);
    const tpl = res.body.data.template;
    expect(tpl).toMatchObject({
      name: 'multipart_header_media',
      headerType: 'video',
      status: 'pending',
      bodyParameters: [
        { index: 1, label: 'Sara' },
        { index: 2, label: 'A-100' },
      ],
    });
    const preview = await t.http().get(new URL(tpl.headerPreviewUrl).pathname);
    expect(preview.status).toBe(200);
    expect(preview.headers['content-type']).toContain('video/mp4');
    expect(incoming(dir)).toEqual([]);
  });

  it('multipart with file; headerType inferred from the bytes', async () => {
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'multipart_file' })))
      .attach('file', pdf(), { filename: 'terms.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(201);
    expect(res.body.data.template).toMatchObject({ headerType: 'document', allowsHeaderMediaOverride: true });
  });

  it('multipart: rule failures are 400 and leave no file behind', async () => {
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'Bad Name' })))
      .attach('file', png(), { filename: 'x.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('name');
    expect(incoming(dir)).toEqual([]);
    const bad = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).field('payload', '{not json');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('payload');
    const both = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'two_files' })))
      .attach('file', png(), { filename: 'a.png', contentType: 'image/png' })
      .attach('headerMedia', png(), { filename: 'b.png', contentType: 'image/png' });
    expect(both.status).toBe(400);
    expect(incoming(dir)).toEqual([]);
  });

  it('multipart: a file whose bytes do not match its claimed type is 400', async () => {
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'mismatch_part' })))
      .attach('headerMedia', pdf(), { filename: 'x.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('headerMedia');
  });

  it('headerMediaUrl: fetched, checked from the bytes and stored', async () => {
    served['/img.png'] = { type: 'application/octet-stream', body: png() };
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'from_url', headerMediaUrl: `${filesUrl}/img.png` }));
    expect(res.status).toBe(201);
    expect(res.body.data.template).toMatchObject({
      headerType: 'image',
      headerAssetId: expect.stringMatching(/^hma_/),
    });
  });

  it('headerMediaUrl: 404 at the source, unsupported bytes and timeouts are 400', async () => {
    served['/text'] = { type: 'image/png', body: Buffer.from('hello') };
    served['/slow.png'] = { type: 'image/png', body: png(), delayMs: 2000 };
    for (const [path, expected] of [
      ['/missing.png', 'HTTP 404'],
      ['/text', 'unsupported'],
      ['/slow.png', 'did not answer'],
    ]) {
      const res = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send(chatappBody({ name: 'url_fail', headerMediaUrl: `${filesUrl}${path}` }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(expected);
    }
    const list = await t.http().get('/api/v2/templates?name=url_fail').set('X-API-Key', acc.key);
    expect(list.body.data.templates).toEqual([]);
  });

  it('headerMediaUrl: a redirect to a malformed Location is 400, not 500', async () => {
    served['/bad-redirect'] = { type: 'image/png', body: Buffer.alloc(0), location: 'http://[' };
    served['/short'] = { type: 'audio/mpeg', body: Buffer.from('ID3') };
    for (const [path, expected] of [
      ['/bad-redirect', refusedTargetText('headerMediaUrl')],
      ['/short', 'headerMediaUrl: unsupported file type'],
    ]) {
      const res = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send(chatappBody({ name: 'url_odd', headerMediaUrl: `${filesUrl}${path}` }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.body.error).toContain(expected);
    }
    expect(incoming(dir)).toEqual([]);
  });

  it('only one of headerAssetId, file and headerMediaUrl', async () => {
    const up = await upload(png(), 'logo.png', 'image/png');
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(
        chatappBody({
          name: 'two_sources',
          headerAssetId: up.body.data.headerAssetId,
          headerMediaUrl: `${filesUrl}/img.png`,
        }),
      );
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('only one');
  });
});

describe('Templates: headerMediaUrl must be https when insecure URLs are not allowed (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { MEDIA_DIR: mediaDir(), WEBHOOK_ALLOW_INSECURE: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('an http URL is 400 naming headerMediaUrl', async () => {
    const acc = await t.createAccount();
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'insecure_url', headerMediaUrl: 'http://127.0.0.1:9/x.png' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(refusedTargetText('headerMediaUrl'));
  });

  it('an https URL to a private address is refused (SSRF rules of webhook targets)', async () => {
    const acc = await t.createAccount();
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'private_url', headerMediaUrl: 'https://127.0.0.1/x.png' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(refusedTargetText('headerMediaUrl'));
  });
});
