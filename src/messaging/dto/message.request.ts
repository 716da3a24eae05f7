import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { CHANNELS, ChannelName } from '../../config/app-config';
import { MAX_BATCH } from '../messages.service';
import { MESSAGE_PURPOSES, MESSAGE_TYPES } from '../validation/validated-message';
import { ApiSchemaRules } from '../../common/openapi';

// The documented shape of a recipient object. The body itself is checked by MessageValidator (one
// validator, stable per-field codes), not by class-validator: keep these limits in step with
// message-validator.ts, recipient-rules.ts and template-rules.ts.

const CHAT_CHANNELS: ChannelName[] = ['chatapp_web', 'messaging_bot'];
const ADDRESS_CHANNELS: ChannelName[] = CHANNELS.filter((c) => !CHAT_CHANNELS.includes(c));

export class MessageContent {
  @ApiPropertyOptional({
    maxLength: 100_000,
    description:
      'The text. Required (non-blank) for free_text except on email, where text or html is. At most 1,600 characters on local_sms, 4,096 on chatapp, chatapp_web and messaging_bot, 100,000 on email.',
    example: 'Your order 1042 has shipped.',
  })
  text?: string;

  @ApiPropertyOptional({
    maxLength: 300,
    description: 'Email only: the subject, required for free_text email.',
    example: 'Your order has shipped',
  })
  subject?: string;

  @ApiPropertyOptional({
    maxLength: 500_000,
    description: 'Email only: the HTML body (with or instead of text).',
    example: '<p>Your order <b>1042</b> has shipped.</p>',
  })
  html?: string;
}

const templateVariable: SchemaObject = { oneOf: [{ type: 'string', maxLength: 1024 }, { type: 'number' }] };

@ApiSchemaRules({ additionalProperties: false })
export class MessageTemplateInput {
  @ApiProperty({
    minLength: 1,
    description:
      'A template of the account (or a default template) that is approved or active and whose category fits the channel; otherwise TEMPLATE_NOT_FOUND / TEMPLATE_NOT_USABLE.',
    example: 'tpl_01m7y90kewyw5pyx06wnaqb2',
  })
  id: string;

  @ApiPropertyOptional({
    type: 'array',
    items: templateVariable,
    description:
      'Values of the body placeholders {{1}}, {{2}}, ... in order: exactly as many as the template has (TEMPLATE_VARIABLES_MISMATCH otherwise). Numbers are sent as text.',
    example: ['Sara', '1042'],
  })
  variablesIndexed?: (string | number)[];

  @ApiPropertyOptional({
    type: 'array',
    items: templateVariable,
    description: 'URL suffixes of the dynamic URL buttons, in button order: exactly one per dynamic button.',
    example: ['orders/1042'],
  })
  buttonVariables?: (string | number)[];

  @ApiPropertyOptional({
    format: 'uri',
    maxLength: 2048,
    description:
      'http(s) URL of a header image/video/document for this send; only for templates with allowsHeaderMediaOverride.',
    example: 'https://cdn.example.com/banner.png',
  })
  headerMediaUrl?: string;
}

export class MessageAttachment {
  @ApiProperty({
    format: 'uri',
    maxLength: 2048,
    description: 'http(s) URL of the file; it must resolve to a public address (the provider fetches it).',
    example: 'https://cdn.example.com/invoice-1042.pdf',
  })
  url: string;

  @ApiPropertyOptional({ maxLength: 200, example: 'application/pdf' })
  mimeType?: string;

  @ApiPropertyOptional({ maxLength: 255, example: 'invoice-1042.pdf' })
  fileName?: string;
}

export class MessageConversationContext {
  @ApiProperty({
    enum: ['chatapp_web', 'messaging_bot'],
    description: '`chatapp_web` (as the chat list gives it); a messaging_bot send also accepts `messaging_bot`.',
    example: 'chatapp_web',
  })
  moduleType: 'chatapp_web' | 'messaging_bot';

  @ApiProperty({
    minLength: 1,
    description:
      'The web-session name (channel chatapp_web) or messaging-bot id (channel messaging_bot); it must be ready (SESSION_NOT_READY) and belong to the account (NOT_FOUND).',
    example: 'support-line',
  })
  accountId: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 200,
    description: 'Must equal the top-level chatId.',
    example: '966501234567@c.us',
  })
  chatId: string;
}

/** Fields shared by the single-send body and a bulk element (`to` differs; see the two classes below). */
abstract class MessageFields {
  @ApiProperty({ enum: CHANNELS, example: 'local_sms' })
  channel: ChannelName;

  @ApiProperty({
    enum: MESSAGE_TYPES,
    description: '`free_text` needs `content`; `template` needs `template`.',
    example: 'free_text',
  })
  messageType: (typeof MESSAGE_TYPES)[number];

  @ApiPropertyOptional({
    type: () => MessageContent,
    description: 'Required for free_text (ignored for template messages).',
  })
  content?: MessageContent;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 100,
    description:
      'local_sms: an approved sender name of the account (SENDER_NOT_APPROVED otherwise); absent: the account default sender, else the platform default. Other channels: passed to the provider as is.',
    example: 'MyShop',
  })
  sender?: string;

  @ApiPropertyOptional({
    type: () => MessageTemplateInput,
    description: 'Required for, and only allowed with, messageType template.',
  })
  template?: MessageTemplateInput;

  @ApiPropertyOptional({
    type: () => MessageAttachment,
    description: 'A file sent with the message; not on local_sms (INVALID_ATTACHMENT).',
  })
  attachment?: MessageAttachment;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description:
      'chatapp_web / messaging_bot: the recipient chat, copied from the chat list. Ignored on other channels.',
    example: '966501234567@c.us',
  })
  chatId?: string;

  @ApiPropertyOptional({
    type: () => MessageConversationContext,
    description:
      'chatapp_web / messaging_bot: copied from the chat list together with chatId. Ignored on other channels.',
  })
  conversationContext?: MessageConversationContext;

  @ApiPropertyOptional({
    enum: MESSAGE_PURPOSES,
    description:
      "What the message is for (default `transactional`; `marketing` when the template's subType is marketing or the SMS sender is promotional). Marketing SMS go out only from a promotional (-AD) sender, carry the opt-out footer, link only to allowedLinkDomains and wait for the sending hours; a suppression entry of scope `marketing` and the do-not-disturb list refuse marketing only (400 RECIPIENT_OPTED_OUT). A marketing template's message cannot be said `transactional` (400 VALIDATION_ERROR).",
    example: 'marketing',
  })
  purpose?: (typeof MESSAGE_PURPOSES)[number];
}

/**
 * What each channel and message type require (JSON Schema cannot say it with `required` alone): a
 * free_text message has content, a template message has template; a phone/email channel has `to`,
 * a chat channel has chatId and conversationContext instead (`to` may then only repeat chatId).
 */
function requirementRules(addressTo: SchemaObject, description: string): SchemaObject[] {
  const enumOf = (values: readonly string[]): SchemaObject => ({ type: 'string', enum: [...values] });
  return [
    {
      oneOf: [
        {
          type: 'object',
          title: 'free_text',
          required: ['messageType', 'content'],
          properties: { messageType: enumOf(['free_text']), content: { $ref: getSchemaPath(MessageContent) } },
        },
        {
          type: 'object',
          title: 'template',
          required: ['messageType', 'template'],
          properties: { messageType: enumOf(['template']), template: { $ref: getSchemaPath(MessageTemplateInput) } },
        },
      ],
    },
    {
      oneOf: [
        {
          type: 'object',
          title: 'phone or email channel',
          required: ['channel', 'to'],
          properties: { channel: enumOf(ADDRESS_CHANNELS), to: addressTo },
        },
        {
          type: 'object',
          title: 'chat channel',
          description,
          required: ['channel', 'chatId', 'conversationContext'],
          properties: {
            channel: enumOf(CHAT_CHANNELS),
            to: { type: 'string', description: 'Omit it, or repeat chatId.' },
            chatId: { type: 'string', minLength: 1, maxLength: 200 },
            conversationContext: { $ref: getSchemaPath(MessageConversationContext) },
          },
        },
      ],
    },
  ];
}

const TO_DESCRIPTION =
  'local_sms and chatapp: a phone number, E.164 or national for DEFAULT_REGION (stored as E.164); email: an address (stored lowercased). chatapp_web / messaging_bot: omit it (or repeat chatId).';
const recipient: SchemaObject = { type: 'string', minLength: 1 };

/**
 * One message to one recipient: the element of a bulk job's `messages` (POST /api/v2/messages/bulk),
 * and the single-send body without its extras (see SendMessageRequest). Unknown fields are refused.
 */
@ApiSchemaRules({
  description: 'One message to one recipient. Unknown fields are refused (VALIDATION_ERROR).',
  additionalProperties: false,
  allOf: requirementRules(recipient, 'chatId is the recipient.'),
})
export class MessageRequest extends MessageFields {
  @ApiPropertyOptional({ type: 'string', minLength: 1, description: TO_DESCRIPTION, example: '+966501234567' })
  to?: string;
}

const RECIPIENTS_DESCRIPTION = `${TO_DESCRIPTION} An array of up to ${MAX_BATCH} recipients shares one content (all validated and paid before any is sent; not on chat channels).`;
const recipients: SchemaObject = {
  oneOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: MAX_BATCH },
  ],
};

/** Body of POST /api/v2/messages/send: a MessageRequest whose `to` may list many recipients, plus scheduleAt. */
@ApiSchemaRules({
  description: 'One message, or one content to up to 100 recipients. Unknown fields are refused (VALIDATION_ERROR).',
  additionalProperties: false,
  allOf: requirementRules(recipients, 'chatId is the recipient; `to` may only repeat it (not an array).'),
})
export class SendMessageRequest extends MessageFields {
  @ApiPropertyOptional({ oneOf: recipients.oneOf, description: RECIPIENTS_DESCRIPTION, example: '+966501234567' })
  to?: string | string[];

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Send later: an ISO 8601 date-time in the future, at most one year ahead (INVALID_SCHEDULE otherwise). The message is paid when scheduled.',
    example: '2030-01-01T09:00:00Z',
  })
  scheduleAt?: string;
}
