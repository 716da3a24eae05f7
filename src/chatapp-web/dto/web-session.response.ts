import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class WebSessionHook {
  @ApiProperty({ description: 'Where the provider (WAHA) posts events for this session' }) url: string;
  @ApiProperty({ description: 'HMAC key the provider signs those events with' }) hmacKey: string;
  @ApiProperty({ enum: ['sha512'] }) algorithm: string;
}

export class WebSession {
  @ApiProperty({ example: 'wss_01JD0Q8Y4C7M2X' }) id: string;
  @ApiProperty({ example: 'sales-line' }) name: string;
  @ApiProperty({ enum: ['web', 'bot'] }) kind: string;
  @ApiProperty({ enum: ['sandbox', 'waha'] }) provider: string;
  @ApiProperty() providerSession: string;
  @ApiProperty({ enum: ['ready', 'starting', 'stopped', 'failed'] }) status: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Chats known for the session (sandbox); null when the provider lists them',
  })
  chatCount: number | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional({ type: WebSessionHook, description: 'WAHA sessions only: configure the provider with it' })
  hook?: WebSessionHook;
}

export class WebSessionResult {
  @ApiProperty({ type: WebSession }) webSession: WebSession;
}

export class InboundAccepted {
  @ApiProperty({ description: 'True when this call stored a new inbound message' }) accepted: boolean;
  @ApiProperty({ type: 'string', nullable: true, enum: ['from_me', 'history_sync', 'duplicate', null] }) dropped:
    string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['queued', 'skipped', null],
    description: '`queued`: an event delivery was written; `skipped`: no web-session webhook',
  })
  status: string | null;
  @ApiProperty({ type: 'string', nullable: true }) deliveryId: string | null;
  @ApiProperty({ type: 'string', nullable: true }) remoteMessageId: string | null;
}

export const WEB_SESSION_EXAMPLE = {
  id: 'wss_01JD0Q8Y4C7M2X',
  name: 'sales-line',
  kind: 'web',
  provider: 'sandbox',
  providerSession: 'sales-line',
  status: 'ready',
  chatCount: 120,
  createdAt: '2026-11-22T10:00:00.000Z',
};
