import { MAX_JSON_DEPTH } from '../json-depth';

// The one error vocabulary: every `code` the API can return, with its HTTP status. The exception
// filter and the OpenAPI document are both built from this list. Add new codes here only.
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, description: 'A field is missing or invalid; the message names it.' },
  INVALID_REQUEST_BODY: {
    status: 400,
    description: `The body is not valid JSON, not a JSON object, or nested deeper than ${MAX_JSON_DEPTH} levels.`,
  },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, description: 'Bulk request without an Idempotency-Key header.' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, description: 'Idempotency key empty or longer than 200 characters.' },
  MESSAGES_PER_SECOND_INVALID: { status: 400, description: 'messagesPerSecond is not an integer from 1 to 10.' },
  MESSAGES_REQUIRED: { status: 400, description: 'messages is not a non-empty array.' },
  INVALID_MESSAGE: {
    status: 400,
    description:
      'A bulk element is not a valid recipient object, or is larger than BULK_MAX_ELEMENT_BYTES (the message names its index).',
  },
  INVALID_RECIPIENT: {
    status: 400,
    description: 'The recipient (`to`) is not a valid phone number, email or chat id for the channel.',
  },
  INVALID_CHANNEL: { status: 400, description: 'Unknown channel.' },
  INVALID_MESSAGE_TYPE: { status: 400, description: 'Unknown messageType, or not allowed on the channel.' },
  INVALID_CONTENT: { status: 400, description: 'content is missing or does not fit the channel and messageType.' },
  SENDER_NOT_APPROVED: { status: 400, description: 'The SMS sender is not an approved sender of the account.' },
  TEMPLATE_NOT_FOUND: { status: 400, description: 'The template does not exist for this account.' },
  TEMPLATE_NOT_USABLE: { status: 400, description: 'The template is not approved or active.' },
  TEMPLATE_VARIABLES_MISMATCH: {
    status: 400,
    description: 'variablesIndexed does not match the template variable count.',
  },
  INVALID_SCHEDULE: { status: 400, description: 'scheduleAt is not an ISO 8601 time in the future.' },
  INVALID_ATTACHMENT: { status: 400, description: 'The attachment is invalid for the channel.' },
  DESTINATION_NOT_ALLOWED: {
    status: 400,
    description:
      "The recipient's country is not among the account's geo permissions for the channel (the message names the country); nothing was paid.",
  },
  SENDER_NOT_ALLOWED: {
    status: 400,
    description:
      'A marketing SMS names a sender that is not promotional, or a promotional (-AD) sender sends a message that is not marketing; nothing was paid.',
  },
  LINK_DOMAIN_NOT_ALLOWED: {
    status: 400,
    description:
      "A marketing SMS links to a host that is not among the account's allowedLinkDomains (GET /api/v2/account/compliance); nothing was paid.",
  },
  RECIPIENT_OPTED_OUT: {
    status: 400,
    description:
      "The recipient is on the account's suppression list (or, for marketing, the platform's do-not-disturb list) for this channel and purpose; nothing was stored or paid.",
  },
  UNAUTHORIZED: { status: 401, description: 'API key (or admin token) missing or invalid.' },
  INSUFFICIENT_BALANCE: {
    status: 402,
    description: 'Free messages, plan quota and wallet cannot pay for the message.',
  },
  FORBIDDEN: { status: 403, description: 'Phone not verified, permission missing, or owner key required.' },
  SUBSCRIPTION_INACTIVE: { status: 403, description: 'The account subscription is inactive.' },
  NOT_FOUND: { status: 404, description: 'Resource or route not found for this account.' },
  JOB_NOT_FOUND: { status: 404, description: 'Bulk job not found for this account.' },
  API_KEY_NOT_FOUND: {
    status: 404,
    description: "No active API key with this id in this account (unknown, revoked, or another account's).",
  },
  NOTHING_TO_RETRY: { status: 409, description: 'The job has no failed rows.' },
  IDEMPOTENCY_CONFLICT: { status: 409, description: 'Same idempotency key with a different body.' },
  INVALID_JOB_STATE: { status: 409, description: 'The job cannot make this move from its current state.' },
  INVALID_STATE: {
    status: 409,
    description:
      'The resource cannot make this move from its current state (e.g. reviewing an SMS sender that is not pending).',
  },
  TEMPLATE_EXISTS: { status: 409, description: 'A template with this name, category and language exists.' },
  SESSION_NOT_READY: { status: 409, description: 'The web session is not ready.' },
  API_KEY_LIMIT_REACHED: {
    status: 409,
    description: 'The account already has the most active API keys it may hold; revoke one first.',
  },
  CONFLICT: { status: 409, description: 'The resource already exists or changed concurrently.' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body is larger than the limit.' },
  MEDIA_QUOTA_EXCEEDED: {
    status: 413,
    description: "The account's stored media would exceed MEDIA_QUOTA_BYTES; nothing was stored.",
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'Content-Type not accepted by this route.' },
  RATE_LIMITED: { status: 429, description: 'Too many requests; see retryAfterSeconds and Retry-After.' },
  VERIFICATION_ATTEMPTS_EXCEEDED: {
    status: 429,
    description: 'Too many verification checks or sends; see retryAfterSeconds.',
  },
  FRAUD_SUSPECTED: {
    status: 429,
    description:
      'The fraud guard refused a verification code to this destination prefix (low conversion, a burst of new numbers, or a platform block); nothing was paid. See retryAfterSeconds, or lift the block.',
  },
  PROVIDER_RATE_LIMITED: { status: 429, description: 'The provider rate-limited the call.' },
  INTERNAL_ERROR: { status: 500, description: 'Unexpected error; the requestId identifies it in the logs.' },
  PROVIDER_ERROR: { status: 502, description: 'The external provider failed.' },
  PROVIDER_UNAVAILABLE: { status: 503, description: 'The provider is unavailable or timed out.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    description:
      'The service is shutting down, or its database is unreachable or busy (a lock held too long); retry shortly.',
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

// Outcome codes: how a message, a bulk row or a bulk job ended, in its `errorCode`. Never an HTTP
// error (no status): an API answer carries them only inside a resource. The error codes above can be
// outcomes too (a row's validation code, a message's PROVIDER_UNAVAILABLE); each errorCode field of
// the OpenAPI document is an enum drawn from both lists.
export const OUTCOME_CODES = {
  PROVIDER_REJECTED: {
    description: 'The provider refused this message for good (unknown number, blocked recipient...); it was refunded.',
  },
  DELIVERY_UNCONFIRMED: {
    description:
      'An earlier attempt reached a provider that cannot be asked afterwards and its answer was lost (restart); it may have been delivered, so it was not sent again; refunded.',
  },
  CANCELLED: { description: 'The bulk job was cancelled before this message was sent; refunded.' },
  UNDELIVERED: {
    description:
      "A delivery receipt: the carrier or device did not get the message (it was sent and paid; receipts do not refund). The provider's own code is in providerErrorCode.",
  },
  EXPIRED: {
    description:
      'A delivery receipt: the carrier gave up delivering the message before it expired (it was sent and paid; receipts do not refund).',
  },
  REJECTED_BY_CARRIER: {
    description:
      'A delivery receipt: the carrier refused the message after the provider accepted it (it was sent and paid; receipts do not refund).',
  },
  VALIDATION_FAILED: {
    description: 'Bulk job: a row failed validation (see the rows with status `invalid`); nothing was sent.',
  },
  INTAKE_INCOMPLETE: {
    description: 'Bulk job: the upload broke off before its last row was stored; nothing was kept.',
  },
} as const;

export type OutcomeCode = keyof typeof OUTCOME_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
