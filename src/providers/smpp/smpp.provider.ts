import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import * as smpp from 'smpp';
import type { SmppConfig } from '../../config/adapters.config';
import { AppConfig } from '../../config/app-config';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome, whenSelected } from '../provider.types';
import { ProvidersRegistry } from '../providers.registry';
import { SmppDeliveries } from './smpp-deliveries';
import { SmppLink } from './smpp-link';
import { smppParts } from './smpp-parts';
import { classifySubmitStatus } from './smpp-status';

/**
 * Vendor-specific optional parameter (SMPP 3.4 reserves 0x1400-0x3FFF for vendors) carrying our full
 * message id. SMSCs ignore optional parameters they do not know; `user_message_reference` (16 bits)
 * carries a hash of it for those that only echo the standard one.
 */
export const CLIENT_REF_TLV = { name: 'client_message_ref', tag: 0x1401 };
if (!(CLIENT_REF_TLV.name in smpp.tlvs))
  smpp.addTLV(CLIENT_REF_TLV.name, { id: CLIENT_REF_TLV.tag, type: smpp.types.tlv.cstring });

/** Local SMS over SMPP 3.4 (`PROVIDER_LOCAL_SMS=smpp`): one bound transceiver session, submit_sm per part. */
@Injectable()
export class SmppProvider implements ChannelProvider, OnModuleInit, OnApplicationShutdown {
  readonly name = 'smpp';
  private readonly logger = new Logger(SmppProvider.name);
  private link: SmppLink | null = null;

  constructor(
    private readonly registry: ProvidersRegistry,
    private readonly config: AppConfig,
    private readonly deliveries: SmppDeliveries,
  ) {}

  onModuleInit(): void {
    this.registry.register('local_sms', this.name, this);
    const smpp = this.config.smpp;
    if (!smpp) return;
    this.link = new SmppLink({
      ...smpp,
      timeoutMs: this.config.providers.timeoutMs,
      onDeliverSm: (pdu) => this.deliveries.handle(pdu),
      submitId: (id) => this.deliveries.storedId(id),
    });
    // Bind early so the first send does not pay for it; a failure here only logs (sends retry).
    this.link.acquire().catch((err: Error) => this.logger.warn(err.message));
  }

  /** At application shutdown (after the loops drained and the HTTP server closed), not module destroy. */
  async onApplicationShutdown(): Promise<void> {
    await this.link?.stop();
  }

  /**
   * One submit_sm per part, in order (see smppParts). Every part must be accepted: a part refused
   * after earlier ones were taken fails the message as a refused first part would (the handset cannot
   * assemble it without the rest; a retry sends every part again under the same reference).
   */
  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const link = whenSelected(this.link, this.name);
    const smpp = whenSelected(this.config.smpp, this.name);
    const ids: string[] = [];
    const parts = submitParts(msg, this.config.messaging.defaultSmsSender, smpp);
    for (const [i, params] of parts.entries()) {
      const resp = await link.request('submit_sm', params);
      if (resp.command_status === 0 && typeof resp.message_id === 'string' && resp.message_id) {
        ids.push(resp.message_id);
        continue;
      }
      const verdict =
        resp.command_status === 0
          ? new ProviderError('failed', 'SMSC accepted the message without a message_id')
          : classifySubmitStatus(resp.command_status);
      const which =
        parts.length > 1
          ? ` (part ${i + 1} of ${parts.length}${ids.length ? `; parts accepted: ${ids.join(', ')}` : ''})`
          : '';
      this.logger.warn(`sms ${msg.messageId} not sent: ${verdict.message}${which}`);
      if (verdict instanceof Error) throw verdict;
      return verdict;
    }
    this.logger.log(`sms ${msg.messageId} accepted by SMSC as ${ids.join(', ')}`);
    return parts.length > 1
      ? { status: 'sent', providerMessageId: ids[0], providerMessageIds: ids }
      : { status: 'sent', providerMessageId: ids[0] };
  }
}

/**
 * The submit_sm of each part: international destination, alphanumeric or numeric source, a delivery
 * receipt requested per part, our id in a TLV and user_message_reference on every part.
 */
export function submitParts(
  msg: OutboundMessage,
  defaultSender: string,
  opts: Pick<SmppConfig, 'longMessage' | 'gsm7Packing'>,
): Record<string, unknown>[] {
  const sender = msg.sender || defaultSender;
  const numericSender = /^\+?\d{3,15}$/.test(sender);
  const reference = referenceHash(msg.messageId);
  const common: Record<string, unknown> = {
    source_addr_ton: numericSender ? 1 : 5,
    source_addr_npi: numericSender ? 1 : 0,
    source_addr: sender.replace(/^\+/, ''),
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: msg.to.replace(/^\+/, ''),
    registered_delivery: 1,
    user_message_reference: reference,
    [CLIENT_REF_TLV.name]: msg.messageId,
  };
  return smppParts(msg.text ?? '', { ...opts, reference }).map((part) => ({ ...common, ...part }));
}

/** 16-bit FNV-1a of our id: a hint for SMSCs that only echo user_message_reference. */
export function referenceHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return (h ^ (h >>> 16)) & 0xffff;
}
