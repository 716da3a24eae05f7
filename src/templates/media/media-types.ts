import type { MediaHeaderType } from '../template.types';

const MB = 1024 * 1024;

/** Accepted header media, recognised from the file's bytes (never its name or claimed type). */
export const MEDIA_RULES: Record<string, { headerType: MediaHeaderType; maxBytes: number; label: string }> = {
  'image/jpeg': { headerType: 'image', maxBytes: 5 * MB, label: '5 MB' },
  'image/png': { headerType: 'image', maxBytes: 5 * MB, label: '5 MB' },
  'video/mp4': { headerType: 'video', maxBytes: 16 * MB, label: '16 MB' },
  'application/pdf': { headerType: 'document', maxBytes: 100 * MB, label: '100 MB' },
};

/** The largest cap: multer's (and the URL fetch's) hard limit, before the type is known. */
export const MEDIA_MAX_BYTES = 100 * MB;

/** Bytes read before detection (file-type needs at most 4100 for these formats). */
export const SNIFF_BYTES = 4100;

/** A header file received and checked, waiting in a temp file to be stored. */
export interface IngestedFile {
  tmpPath: string;
  size: number;
  mimeType: string;
  headerType: MediaHeaderType;
}
