import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ApiError } from '../../common/errors';
import { loadConfig } from '../../config/app-config';
import { MediaIngest } from './media-ingest';

const MB = 1024 * 1024;

/** A stream of `total` bytes starting with `head`, produced lazily in 64 KB chunks; counts what was read. */
function lazy(head: Buffer, total: number): { stream: Readable; produced: () => number } {
  let produced = 0;
  const stream = new Readable({
    read() {
      if (produced >= total) return void this.push(null);
      const size = Math.min(64 * 1024, total - produced);
      const chunk = Buffer.alloc(size);
      if (produced === 0) head.copy(chunk);
      produced += size;
      this.push(chunk);
    },
  });
  return { stream, produced: () => produced };
}

const MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 24]),
  Buffer.from('ftypisom'),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from('isomiso2'),
]);
const PDF = Buffer.from('%PDF-1.4\n');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);

describe(MediaIngest.name, () => {
  let dir: string;
  let sut: MediaIngest;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ingest-'));
    sut = new MediaIngest(loadConfig({ MEDIA_DIR: dir }));
  });

  it.each([
    ['video/mp4', MP4, 16],
    ['image/jpeg', JPEG, 5],
  ])('%s: accepted at its cap, refused (413) just past it without reading the rest', async (mime, head, capMb) => {
    const ok = await sut.ingest(lazy(head, capMb * MB).stream, mime, 'file');
    expect(ok).toMatchObject({ mimeType: mime, size: capMb * MB });
    await MediaIngest.discard(ok);

    const big = lazy(head, (capMb + 20) * MB);
    const err = await sut.ingest(big.stream, mime, 'file').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('PAYLOAD_TOO_LARGE');
    expect(big.produced()).toBeLessThan((capMb + 2) * MB);
    expect(readdirSync(join(dir, '.incoming'))).toEqual([]);
  });

  it('pdf: 30 MB is accepted (document cap 100 MB)', async () => {
    const ok = await sut.ingest(lazy(PDF, 30 * MB).stream, null, 'file');
    expect(ok).toMatchObject({ mimeType: 'application/pdf', headerType: 'document', size: 30 * MB });
    await MediaIngest.discard(ok);
  });

  it.each(['ID3', 'OggS'])(
    '%s: too short for the sniffer reads as an unsupported type (400), not a crash',
    async (bytes) => {
      const err = await sut.ingest(Readable.from([Buffer.from(bytes)]), null, 'file').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/^file: unsupported file type/),
      });
      expect(readdirSync(join(dir, '.incoming'))).toEqual([]);
    },
  );

  it('a tiny file shorter than the sniff window is still detected', async () => {
    const ok = await sut.ingest(Readable.from([JPEG]), 'image/jpeg', 'file');
    expect(ok.mimeType).toBe('image/jpeg');
    await MediaIngest.discard(ok);
  });
});
