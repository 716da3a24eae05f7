import { ApiError } from '../common/errors';
import { exceedsJsonDepth, tooDeepMessage } from '../common/json-depth';
import { createValidationPipe } from '../common/validation.pipe';
import { CreateTemplateDto } from './dto/create-template.dto';
import { MediaIngest } from './media/media-ingest';
import type { UploadedMedia } from './media/multer-ingest.storage';

export type UploadedParts = Partial<Record<'headerMedia' | 'file', UploadedMedia[]>> | undefined;

const pipe = createValidationPipe();

/** The one uploaded file of a request (`headerMedia` or `file`), or null. */
export async function singleUpload(parts: UploadedParts): Promise<UploadedMedia | null> {
  const uploads = [...(parts?.headerMedia ?? []), ...(parts?.file ?? [])];
  if (uploads.length > 1) {
    await Promise.all(uploads.map((u) => MediaIngest.discard(u.ingested)));
    throw ApiError.validation('send the header file once, as headerMedia or as file');
  }
  return uploads[0] ?? null;
}

/**
 * A create request is JSON, or multipart with the binary in `headerMedia` or `file` and the other
 * fields as a JSON string in `payload` (plain text parts are accepted too; `payload` wins).
 */
export async function parseCreateRequest(
  body: unknown,
  multipart: boolean,
  parts: UploadedParts,
): Promise<{ dto: CreateTemplateDto; upload: UploadedMedia | null }> {
  const upload = await singleUpload(parts);
  try {
    let fields: unknown = body;
    if (multipart) {
      const { payload, ...rest } = { ...((body ?? {}) as Record<string, unknown>) };
      let parsed: unknown = {};
      if (payload !== undefined) {
        try {
          parsed = JSON.parse(String(payload));
        } catch {
          throw ApiError.validation('payload must be a JSON string holding the template fields');
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
          throw ApiError.validation('payload must be a JSON object');
        // The multipart `payload` is a JSON body too: same depth limit as the JSON parser's.
        if (exceedsJsonDepth(parsed)) throw new ApiError('INVALID_REQUEST_BODY', tooDeepMessage());
      }
      fields = { ...rest, ...(parsed as Record<string, unknown>) };
    }
    if (!fields || typeof fields !== 'object' || Array.isArray(fields))
      throw new ApiError('INVALID_REQUEST_BODY', 'Request body must be a JSON object');
    const dto = (await pipe.transform(fields, { type: 'body', metatype: CreateTemplateDto })) as CreateTemplateDto;
    return { dto, upload };
  } catch (err) {
    // The handler never gets this file: remove it from the incoming area now.
    await MediaIngest.discard(upload?.ingested);
    throw err;
  }
}
