import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MessageRequest } from '../../messaging/dto/message.request';
import { MAX_KEY } from '../bulk-request-rules';

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
