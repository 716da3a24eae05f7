import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MessageRequest } from '../../messaging/dto/message.request';
import { MAX_KEY } from '../bulk-request-rules';

/** `testOptions` of a test key's bulk job. */
export class BulkTestOptions {
  @ApiPropertyOptional({
    type: 'boolean',
    description: 'Receipts (delivered, read) at once rather than after SANDBOX_DELIVERED_AFTER_MS. Omitted: false.',
  })
  instantReceipts?: boolean;
}

/**
 * Body of POST /messages/bulk. Describes the request only: the route streams the body itself
 * (no Nest body parsing, no size limit) and checks it in bulk-request-rules.ts.
 */
export class CreateBulkJobBody {
  @ApiPropertyOptional({
    type: 'string',
    maxLength: 200,
    nullable: true,
    description: 'Job name (400 INVALID_REQUEST_BODY when not a string of at most 200 characters).',
  })
  name?: string | null;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 10,
    description: 'Sending pace; never lowered automatically (400 MESSAGES_PER_SECOND_INVALID otherwise).',
  })
  messagesPerSecond: number;

  @ApiProperty({
    type: () => MessageRequest,
    isArray: true,
    minItems: 1,
    description:
      "One element per message: the send route's recipient object with a single `to` and no `scheduleAt` (400 MESSAGES_REQUIRED when empty or not an array, INVALID_MESSAGE naming the index otherwise).",
  })
  messages: MessageRequest[];

  @ApiPropertyOptional({
    type: () => BulkTestOptions,
    nullable: true,
    description:
      "Test keys only (a live key gets 400 INVALID_REQUEST_BODY). Pacing stays real; `instantReceipts` makes the sandbox send each message's receipts at once instead of after 1-3 s.",
  })
  testOptions?: BulkTestOptions | null;

  @ApiPropertyOptional({
    maxLength: MAX_KEY,
    minLength: 1,
    description: 'Used only when the Idempotency-Key header is absent.',
  })
  idempotencyKey?: string;
}

export const EXAMPLE_BULK_BODY = {
  name: 'November newsletter',
  messagesPerSecond: 5,
  messages: [
    {
      to: '+14155550101',
      channel: 'local_sms',
      messageType: 'free_text',
      content: { text: 'Our November offers are live.' },
    },
    {
      to: 'ana@example.com',
      channel: 'email',
      messageType: 'free_text',
      content: { subject: 'November offers', text: 'Our November offers are live.' },
    },
  ],
};
