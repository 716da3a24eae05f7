import { ApiError } from '../common/errors';
import type { MessageValidator } from '../messaging/validation/message-validator';
import type { ValidationContext } from '../messaging/validation/validation-context';
import type { ValidatedMessage } from '../messaging/validation/validated-message';
import { MessageValidationCode, validationCodeOf } from '../messaging/validation/validation-codes';

export interface RowProblem {
  code: MessageValidationCode;
  message: string;
}

export type RowVerdict = { ok: true; message: ValidatedMessage } | ({ ok: false } & RowProblem);

/**
 * One bulk row (`read` gives its parsed element) through the messaging validator, as the validation
 * loop and the dry run both see it: an ApiError is the row's problem (message cut to what a row
 * stores); anything else (a lookup that failed, a payload that does not parse) still makes the row
 * invalid rather than failing the whole job.
 */
export async function checkBulkRow(
  validator: Pick<MessageValidator, 'validate'>,
  ctx: ValidationContext,
  read: () => unknown,
): Promise<RowVerdict> {
  try {
    return { ok: true, message: await validator.validate(ctx, read(), { bulkRow: true }) };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, code: validationCodeOf(err), message: err.message.slice(0, 500) };
    return { ok: false, code: 'VALIDATION_ERROR', message: 'The row could not be checked' };
  }
}
