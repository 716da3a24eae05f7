import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { MediaIngest } from './media-ingest';
import type { IngestedFile } from './media-types';

/** What the templates controllers get for an uploaded part (multer file + our checks). */
export type UploadedMedia = Express.Multer.File & { ingested: IngestedFile };

/**
 * multer storage engine that runs each uploaded part through MediaIngest, so type detection and the
 * per-type size cap happen while the upload streams in (the request is refused at the cap).
 */
export function ingestStorage(ingest: MediaIngest): StorageEngine {
  return {
    _handleFile(
      _req: Request,
      file: Express.Multer.File,
      cb: (error?: unknown, info?: Partial<UploadedMedia>) => void,
    ): void {
      ingest.ingest(file.stream, file.mimetype ?? null, file.fieldname).then(
        (ingested) => cb(null, { path: ingested.tmpPath, size: ingested.size, ingested }),
        (err) => cb(err),
      );
    },
    _removeFile(_req: Request, file: Express.Multer.File, cb: (error: Error | null) => void): void {
      void MediaIngest.discard({ tmpPath: file.path }).then(() => cb(null));
    },
  };
}
