import type { ApiError, ErrorCode } from '../../common/errors';

/**
 * Every code MessageValidator refuses a message with, its ports' included (a session lookup answers
 * NOT_FOUND or SESSION_NOT_READY; geo permissions DESTINATION_NOT_ALLOWED; marketing rules SENDER_NOT_ALLOWED, LINK_DOMAIN_NOT_ALLOWED): what a bulk row found invalid, or failed when checked again at
 * send time, records as its errorCode.
 */
export const MESSAGE_VALIDATION_CODES = [
  'VALIDATION_ERROR',
  'INVALID_RECIPIENT',
  'INVALID_CHANNEL',
  'INVALID_MESSAGE_TYPE',
  'INVALID_CONTENT',
  'INVALID_SCHEDULE',
  'INVALID_ATTACHMENT',
  'SENDER_NOT_APPROVED',
  'TEMPLATE_NOT_FOUND',
  'TEMPLATE_NOT_USABLE',
  'TEMPLATE_VARIABLES_MISMATCH',
  'NOT_FOUND',
  'SESSION_NOT_READY',
  'DESTINATION_NOT_ALLOWED',
  'SENDER_NOT_ALLOWED',
  'LINK_DOMAIN_NOT_ALLOWED',
] as const satisfies readonly ErrorCode[];
export type MessageValidationCode = (typeof MESSAGE_VALIDATION_CODES)[number];

/** A validator refusal's code; any other (a port that answered unexpectedly) reads as VALIDATION_ERROR. */
export function validationCodeOf(err: ApiError): MessageValidationCode {
  return (MESSAGE_VALIDATION_CODES as readonly string[]).includes(err.code)
    ? (err.code as MessageValidationCode)
    : 'VALIDATION_ERROR';
}
