import { Inject, Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import { AppConfig } from '../../config/app-config';
import { RECEIPT_INTAKE, type ReceiptIntake } from '../../providers/provider-events';
import { WebSessionsService } from '../web-sessions.service';
import { InboundMessagesService } from './inbound-messages.service';
import { InboundResult } from './inbound.types';
import { parseWahaEvent } from './waha-events';

export type WahaHookResult = { ok: true; event: string } & Partial<InboundResult> & {
    ignored?: boolean;
    sessionStatus?: string;
    receiptStatus?: string;
  };

/** Verifies and dispatches one WAHA webhook call for one of our sessions. */
@Injectable()
export class WahaHookService {
  constructor(
    private readonly sessions: WebSessionsService,
    private readonly inbound: InboundMessagesService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    @Inject(RECEIPT_INTAKE) private readonly receipts: ReceiptIntake,
  ) {}

  async handle(
    sessionRef: string,
    signature: string | undefined,
    rawBody: Buffer | null,
    body: unknown,
  ): Promise<WahaHookResult> {
    const session = await this.sessions.findAnyById(sessionRef);
    const key = session && session.provider === 'waha' ? this.sessions.hookKey(session) : null;
    // Same answer for an unknown session and a bad signature: the route does not reveal which ids exist.
    if (
      !session ||
      !key ||
      !signature ||
      !verify(key, signature, rawBody ?? Buffer.from(JSON.stringify(body ?? null)))
    ) {
      throw new ApiError('UNAUTHORIZED', 'Webhook signature missing or invalid');
    }
    const action = parseWahaEvent(body, session, {
      now: this.clock.now(),
      maxAgeMs: this.config.waha.eventMaxAgeSeconds * 1000,
    });
    if (action.kind === 'ignored') return { ok: true, event: action.event, ignored: true };
    if (action.kind === 'receipt') {
      await this.receipts.accept([action.receipt]);
      return { ok: true, event: 'message.ack', receiptStatus: action.receipt.status };
    }
    if (action.kind === 'status') {
      await this.sessions.setStatus(session, action.status);
      return { ok: true, event: 'session.status', sessionStatus: action.status };
    }
    return { ok: true, event: 'message', ...(await this.inbound.receive(session, action.input)) };
  }
}

/**
 * WAHA sends `X-Webhook-Hmac: hex(HMAC-SHA512(key, body))`. Without the raw body (the app's JSON
 * parser keeps none) the body is re-serialised: WAHA itself sends `JSON.stringify(event)`, which a
 * parse/stringify round trip reproduces byte for byte.
 */
function verify(key: string, signature: string, body: Buffer): boolean {
  const expected = Buffer.from(createHmac('sha512', key).update(body).digest('hex'));
  const given = Buffer.from(signature.trim().toLowerCase());
  return expected.length === given.length && timingSafeEqual(expected, given);
}
