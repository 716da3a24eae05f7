import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHANNELS } from '../../config/app-config';
import { MESSAGE_TYPES } from '../../messaging/validation/validated-message';
import { MAX_KEY } from '../bulk-request-rules';

/**
 * One element of `messages`: a recipient object of the send route with a single `to` and no
 * `scheduleAt`. The intake only checks those two rules (400 INVALID_MESSAGE); the job then validates
 * every row with the send validator and rejects the whole job (errorCode) when one row is invalid.
 *
 * Minimal stand-in until the send route's request class (MessageRequest) is available here: the
 * array's items should then be that class.
 */
export class BulkMessage {
  @ApiPropertyOptional({ description: 'One recipient: phone (E.164 or national for DEFAULT_REGION) or email. Omit on chatapp_web / messaging_bot (chatId is the recipient). Never an array.' })
  to?: string;

  @ApiProperty({ enum: CHANNELS })
  channel: string;

  @ApiProperty({ enum: MESSAGE_TYPES })
  messageType: string;

  @ApiPropertyOptional({
    type: 'object',
    description: 'Required for free_text: `text` (email: `subject` and `text` and/or `html`).',
    properties: { text: { type: 'string' }, subject: { type: 'string', maxLength: 300 }, html: { type: 'string' } },
  })
  content?: { text?: string; subject?: string; html?: string };

  @ApiPropertyOptional({ maxLength: 100, description: 'SMS sender name; absent = account default or platform default.' })
  sender?: string;

  @ApiPropertyOptional({
    type: 'object',
    description: 'Required for messageType template.',
    required: ['id'],
    properties: {
      id: { type: 'string' },
      variablesIndexed: { type: 'array', items: { type: 'string' } },
      buttonVariables: { type: 'array', items: { type: 'string' } },
      headerMediaUrl: { type: 'string', format: 'uri' },
    },
  })
  template?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    description: 'Not on local_sms.',
    required: ['url'],
    properties: { url: { type: 'string', format: 'uri' }, mimeType: { type: 'string', maxLength: 200 }, fileName: { type: 'string', maxLength: 255 } },
  })
  attachment?: Record<string, unknown>;

  @ApiPropertyOptional({ maxLength: 200, description: 'chatapp_web / messaging_bot: the chat, from GET /chatapp-web/chats.' })
  chatId?: string;

  @ApiPropertyOptional({
    type: 'object',
    description: 'chatapp_web / messaging_bot: copied from the chat list.',
    required: ['moduleType', 'accountId', 'chatId'],
    properties: { moduleType: { type: 'string', enum: ['chatapp_web', 'messaging_bot'] }, accountId: { type: 'string' }, chatId: { type: 'string' } },
  })
  conversationContext?: { moduleType: string; accountId: string; chatId: string };
}

/**
 * Body of POST /messages/bulk. Describes the request only: the route streams the body itself
 * (no Nest body parsing, no size limit) and checks it in bulk-request-rules.ts.
 */
export class CreateBulkJobBody {
  @ApiPropertyOptional({ type: 'string', maxLength: 200, nullable: true, description: 'Job name (400 INVALID_REQUEST_BODY when not a string of at most 200 characters).' })
  name?: string | null;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 10, description: 'Sending pace; never lowered automatically (400 MESSAGES_PER_SECOND_INVALID otherwise).' })
  messagesPerSecond: number;

  @ApiProperty({ type: () => BulkMessage, isArray: true, minItems: 1, description: 'One element per message (400 MESSAGES_REQUIRED when empty or not an array).' })
  messages: BulkMessage[];

  @ApiPropertyOptional({ maxLength: MAX_KEY, minLength: 1, description: 'Used only when the Idempotency-Key header is absent.' })
  idempotencyKey?: string;
}

export const EXAMPLE_BULK_BODY = {
  name: 'November newsletter',
  messagesPerSecond: 5,
  messages: [
    { to: '+14155550101', channel: 'local_sms', messageType: 'free_text', content: { text: 'Our November offers are live.' } },
    { to: 'ana@example.com', channel: 'email', messageType: 'free_text', content: { subject: 'November offers', text: 'Our November offers are live.' } },
  ],
};
