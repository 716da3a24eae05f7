import { ProviderError, ProviderOutcome } from '../provider.types';

/** Nodemailer's error shape (code + the SMTP reply that caused it, when there was one). */
interface SmtpFailure {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
}

const TRANSPORT_CODES = new Set(['ETIMEDOUT', 'ESOCKET', 'ECONNECTION', 'EDNS', 'ETLS']);

/**
 * What an SMTP failure means for the message: a permanent (5xx) refusal of the envelope or the
 * message settles it as rejected; a transient 4xx reply, a refused / dropped connection or a
 * timeout is `unavailable` (try later); bad credentials and protocol surprises are `failed`.
 */
export function classifySmtpFailure(err: unknown): Extract<ProviderOutcome, { status: 'rejected' }> | ProviderError {
  const e = (err ?? {}) as SmtpFailure;
  const reply = e.response ? ` (${e.command ?? 'SMTP'}: ${e.response})` : '';
  const detail = `${e.code ?? 'SMTP error'}: ${e.message ?? String(err)}${reply}`;
  const status = e.responseCode ?? 0;
  if (e.code === 'EAUTH') return new ProviderError('failed', `SMTP authentication failed: ${detail}`);
  if (status >= 400 && status < 500)
    return new ProviderError('unavailable', `SMTP server deferred the message: ${detail}`);
  if (status >= 500 && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE')) {
    return { status: 'rejected', code: 'PROVIDER_REJECTED', message: `SMTP server refused the message: ${detail}` };
  }
  if (e.code && TRANSPORT_CODES.has(e.code))
    return new ProviderError('unavailable', `SMTP server unreachable: ${detail}`);
  return new ProviderError('failed', `SMTP send failed: ${detail}`);
}
