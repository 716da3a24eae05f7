import type { ErrorCode, OutcomeCode } from '../common/errors';
import { POLICY_REFUSAL_CODES, type PolicyRefusalCode } from '../messaging/policy/send-policy';
import { MESSAGE_FAILURE_CODES } from '../messaging/send-outcome';
import { MESSAGE_VALIDATION_CODES } from '../messaging/validation/validation-codes';

/** A bulk row's errorCode: why it is `invalid` (validation) or `failed` (at send time, or its message's failure). */
export const BULK_ROW_ERROR_CODES = [
  ...new Set([...MESSAGE_VALIDATION_CODES, ...MESSAGE_FAILURE_CODES, ...POLICY_REFUSAL_CODES]),
];
export type BulkRowErrorCode =
  (typeof MESSAGE_VALIDATION_CODES)[number] | (typeof MESSAGE_FAILURE_CODES)[number] | PolicyRefusalCode;

/** A bulk job's errorCode: why it was `rejected` before anything was sent. */
export const BULK_JOB_ERROR_CODES = [
  'VALIDATION_FAILED',
  'INSUFFICIENT_BALANCE',
  'INTAKE_INCOMPLETE',
] as const satisfies readonly (ErrorCode | OutcomeCode)[];
export type BulkJobErrorCode = (typeof BULK_JOB_ERROR_CODES)[number];
