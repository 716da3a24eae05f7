import type { ChannelName } from '../../config/app-config';
import type { ErrorCode } from '../../common/errors';
import { refusedTargetText, type TargetPolicy, TargetRefusedError } from '../../common/net/target-policy';
import { fail, httpUrl, isObject, optionalString } from './recipient-rules';
import type { ValidatedMessage } from './validated-message';
import { memo, type ValidationContext } from './validation-context';

// URLs of a message that a provider or the server will fetch (attachments, template header media),
// for MessageValidator: checked by the target rules of every server-side fetch.

export async function attachmentOf(
  targets: TargetPolicy,
  ctx: ValidationContext,
  v: unknown,
  channel: ChannelName,
): Promise<ValidatedMessage['attachment']> {
  if (v === undefined || v === null) return null;
  if (channel === 'local_sms') fail('INVALID_ATTACHMENT', 'attachment is not supported on local_sms');
  if (!isObject(v)) fail('INVALID_ATTACHMENT', 'attachment must be an object with url');
  // Providers (SMTP, bot API) fetch it from our server: the target rules of every server-side
  // fetch; adapters get the normalised URL, never the raw string.
  const url = await fetchTarget(
    targets,
    ctx,
    httpUrl(v.url, 'attachment.url', 'INVALID_ATTACHMENT'),
    'attachment.url',
    'INVALID_ATTACHMENT',
  );
  return {
    url,
    mimeType: optionalString(v, 'mimeType', 'attachment.mimeType', 'INVALID_ATTACHMENT', 200),
    fileName: optionalString(v, 'fileName', 'attachment.fileName', 'INVALID_ATTACHMENT', 255),
  };
}

/**
 * A URL the server or a provider will fetch: parsed and checked once (TargetPolicy), its host's
 * addresses checked once per context. Returns the normalised URL; one refusal text for every reason.
 */
export async function fetchTarget(
  targets: TargetPolicy,
  ctx: ValidationContext,
  raw: string,
  field: string,
  code: ErrorCode,
): Promise<string> {
  let url: URL;
  try {
    url = targets.parse(raw);
  } catch (err) {
    if (err instanceof TargetRefusedError) fail(code, refusedTargetText(field));
    throw err;
  }
  if (targets.rules.allowInsecure) return url.href;
  const allowed = await memo(ctx.targetHosts, url.host, () =>
    targets.pin(url).then(
      () => true,
      (err: unknown) => {
        if (err instanceof TargetRefusedError) return false;
        throw err;
      },
    ),
  );
  if (!allowed) fail(code, refusedTargetText(field));
  return url.href;
}
