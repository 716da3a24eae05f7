import { Injectable } from '@nestjs/common';
import type { WebSessionView } from '../chatapp-web/web-session.types';
import { InboundMessagesService } from '../chatapp-web/inbound/inbound-messages.service';
import type { InboundResult } from '../chatapp-web/inbound/inbound.types';
import { WebSessionsService } from '../chatapp-web/web-sessions.service';
import { Clock } from '../common/clock';
import type { InboundSmsItem } from '../senders/inbound-sms/dto/inbound-sms.response';
import { InboundSmsService } from '../senders/inbound-sms/inbound-sms.service';
import type { SimulateInboundSmsRequest, SimulateWebInboundRequest } from './dto/controls.request';
import type { AccountId } from '../common/account-id';

/**
 * Test-mode controls over what reaches the account: inbound SMS and web-session messages, handed to
 * the same intakes the SMPP adapter and the web-session providers use (keywords, opt-outs, events,
 * the web-session webhook), always for the calling test key's account.
 */
@Injectable()
export class InboundControlsService {
  constructor(
    private readonly sms: InboundSmsService,
    private readonly sessions: WebSessionsService,
    private readonly webInbound: InboundMessagesService,
    private readonly clock: Clock,
  ) {}

  /** An SMS from `from` to one of the account's approved senders (its default one without `to`). */
  inboundSms(accountId: AccountId, r: SimulateInboundSmsRequest): Promise<InboundSmsItem> {
    return this.sms.acceptForAccount(accountId, { from: r.from, to: r.to ?? null, text: r.text, at: this.clock.now() });
  }

  /** The account's linked web session `name` (a sandbox one), created when missing. */
  webSession(accountId: AccountId, name: string): Promise<{ webSession: WebSessionView; created: boolean }> {
    return this.sessions.ensureLinked(accountId, name);
  }

  /** A one-to-one text from the contact `from` on the account's session `name`, as a provider reports one. */
  async webInboundMessage(accountId: AccountId, name: string, r: SimulateWebInboundRequest): Promise<InboundResult> {
    const session = await this.sessions.findOwned(accountId, name);
    const jid = `${r.from.slice(1)}@c.us`;
    return this.webInbound.receive(session, { from: { jid, phone: r.from, displayName: r.from }, text: r.text });
  }
}
