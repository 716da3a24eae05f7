import { Injectable } from '@nestjs/common';
import { fromBuffer } from 'file-type';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../../common/errors';
import { IngestedFile, MEDIA_MAX_BYTES, MEDIA_RULES, SNIFF_BYTES } from './media-types';

const GENERIC_CLAIMS = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/**
 * The type from the first bytes, or undefined when unknown. file-type reads past the end of a short
 * input for some signatures (3 bytes `ID3`, `OggS`) and throws EndOfStreamError: that is "unknown",
 * not a server error.
 */
async function sniff(buf: Buffer): Promise<{ mime: string } | undefined> {
  try {
    return await fromBuffer(buf);
  } catch (err) {
    if (err instanceof Error && err.constructor.name === 'EndOfStreamError') return undefined;
    throw err;
  }
}

/**
 * Streams a header file into a temp file while checking it: the type is recognised from the first
 * bytes, and the stream is abandoned as soon as it passes that type's cap (413 PAYLOAD_TOO_LARGE),
 * so an oversize upload or download never lands on disk in full.
 */
@Injectable()
export class MediaIngest {
  readonly incomingDir: string;

  constructor(config: AppConfig) {
    this.incomingDir = join(config.media.dir, '.incoming');
    mkdirSync(this.incomingDir, { recursive: true });
  }

  /** `field` names the request field in error messages. */
  ingest(source: Readable, claimedMime: string | null, field: string): Promise<IngestedFile> {
    const tmpPath = join(this.incomingDir, randomBytes(16).toString('hex'));
    const out = createWriteStream(tmpPath);
    const head: Buffer[] = [];
    let headLen = 0;
    let size = 0;
    let rule: { mime: string; maxBytes: number; label: string; headerType: IngestedFile['headerType'] } | null = null;
    let detecting: Promise<void> | null = null;

    return new Promise<IngestedFile>((resolve, reject) => {
      let failed = false;
      const fail = (err: unknown) => {
        if (failed) return;
        failed = true;
        // Stop reading: the rest is never written. (multer drains the request itself; a fetched body
        // is destroyed by the caller.)
        source.removeAllListeners('data');
        source.pause();
        // The temp file may still be opening: remove it only once the write stream has closed.
        const cleanup = () =>
          void unlink(tmpPath)
            .catch(() => undefined)
            .then(() => reject(err));
        if (out.closed) cleanup();
        else out.once('close', cleanup);
        out.destroy();
      };
      const detect = async () => {
        const buf = Buffer.concat(head);
        const found = await sniff(buf);
        const r = found ? MEDIA_RULES[found.mime] : undefined;
        if (!found || !r)
          throw ApiError.validation(
            `${field}: unsupported file type${found ? ` (${found.mime})` : ''}; allowed: JPEG or PNG image, MP4 video, PDF document`,
          );
        const claim = (claimedMime ?? '').split(';')[0].trim().toLowerCase();
        if (!GENERIC_CLAIMS.has(claim) && claim !== found.mime) {
          throw ApiError.validation(`${field}: the file content is ${found.mime} but it was sent as ${claim}`);
        }
        rule = { mime: found.mime, ...r };
      };
      const checkCap = () => {
        const cap = rule ? rule.maxBytes : MEDIA_MAX_BYTES;
        if (size > cap) {
          throw new ApiError(
            'PAYLOAD_TOO_LARGE',
            `${field}: ${rule ? `${rule.mime} files are limited to ${rule.label}` : 'file is larger than 100 MB'}`,
          );
        }
      };
      source.on('data', (chunk: Buffer) => {
        if (failed) return;
        size += chunk.length;
        if (!rule && !detecting) {
          head.push(chunk);
          headLen += chunk.length;
          if (headLen >= SNIFF_BYTES) {
            source.pause();
            detecting = detect().then(() => {
              detecting = null;
              checkCap();
              source.resume();
            });
            detecting.catch(fail);
          }
        }
        try {
          checkCap();
        } catch (err) {
          return fail(err);
        }
        if (!out.write(chunk)) {
          source.pause();
          out.once('drain', () => !detecting && !failed && source.resume());
        }
      });
      source.once('error', fail);
      out.once('error', fail);
      source.once('end', () => {
        const finish = async () => {
          if (detecting) await detecting;
          if (!rule) await detect();
          checkCap();
          await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
          const r = rule as NonNullable<typeof rule>;
          return { tmpPath, size, mimeType: r.mime, headerType: r.headerType };
        };
        finish().then(resolve, fail);
      });
    });
  }

  /** Removes a temp file; one already moved into storage (or never written) is fine. */
  static async discard(file: { tmpPath: string } | null | undefined): Promise<void> {
    if (file) await unlink(file.tmpPath).catch(() => undefined);
  }
}
