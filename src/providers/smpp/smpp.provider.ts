import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import * as smpp from 'smpp';
import { AppConfig } from '../../config/app-config';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome, whenSelected } from '../provider.types';
import { ProvidersRegistry } from '../providers.registry';
import { SmppDeliveries } from './smpp-deliveries';
import { SmppLink } from './smpp-link';
import { classifySubmitStatus } from './smpp-status';

/**
 * Vendor-specific optional parameter (SMPP 3.4 reserves 0x1400-0x3FFF for vendors) carrying our full
 * message id. SMSCs ignore optional parameters they do not know; `user_message_reference` (16 bits)
 * carries a hash of it for those that only echo the standard one.
 */
export const CLIENT_REF_TLV = { name: 'client_message_ref', tag: 0x1401 };
if (!(CLIENT_REF_TLV.name in smpp.tlvs)) smpp.addTLV(CLIENT_REF_TLV.name, { id: CLIENT_REF_TLV.tag, type: smpp.types.tlv.cstring });

const SHORT_MESSAGE_MAX_BYTES = 254;

/** Local SMS over SMPP 3.4 (`PROVIDER_LOCAL_SMS=smpp`): one bound transceiver session, submit_sm per message. */
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
    this.link = new SmppLink({ ...smpp, timeoutMs: this.config.providers.timeoutMs, onDeliverSm: (pdu) => this.deliveries.handle(pdu), submitId: (id) => this.deliveries.storedId(id) });
    // Bind early so the first send does not pay for it; a failure here only logs (sends retry).
    this.link.acquire().catch((err: Error) => this.logger.warn(err.message));
  }

  /** At application shutdown (after the loops drained and the HTTP server closed), not module destroy. */
  async onApplicationShutdown(): Promise<void> {
    await this.link?.stop();
  }

  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const link = whenSelected(this.link, this.name);
    const resp = await link.request('submit_sm', submitParams(msg, this.config.messaging.defaultSmsSender));
    if (resp.command_status === 0 && typeof resp.message_id === 'string' && resp.message_id) {
      this.logger.log(`sms ${msg.messageId} accepted by SMSC as ${resp.message_id}`);
      return { status: 'sent', providerMessageId: resp.message_id };
    }
    const verdict = resp.command_status === 0 ? new ProviderError('failed', 'SMSC accepted the message without a message_id') : classifySubmitStatus(resp.command_status);
    this.logger.warn(`sms ${msg.messageId} not sent: ${verdict.message}`);
    if (verdict instanceof Error) throw verdict;
    return verdict;
  }
}

/** submit_sm fields: international destination, alphanumeric or numeric source, delivery receipt requested. */
export function submitParams(msg: OutboundMessage, defaultSender: string): Record<string, unknown> {
  const sender = msg.sender || defaultSender;
  const numericSender = /^\+?\d{3,15}$/.test(sender);
  const text = msg.text ?? '';
  const params: Record<string, unknown> = {
    source_addr_ton: numericSender ? 1 : 5,
    source_addr_npi: numericSender ? 1 : 0,
    source_addr: sender.replace(/^\+/, ''),
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: msg.to.replace(/^\+/, ''),
    registered_delivery: 1,
    user_message_reference: referenceHash(msg.messageId),
    [CLIENT_REF_TLV.name]: msg.messageId,
  };
  // GSM-7 text fits 160 characters (one byte each here), UCS-2 two bytes a character: longer text
  // goes in message_payload and the SMSC segments it.
  const bytes = /^[\x20-\x7e\n\r]*$/.test(text) ? text.length : text.length * 2;
  if (bytes <= SHORT_MESSAGE_MAX_BYTES) params.short_message = text;
  else params.message_payload = text;
  return params;
}

/** 16-bit FNV-1a of our id: a hint for SMSCs that only echo user_message_reference. */
export function referenceHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return (h ^ (h >>> 16)) & 0xffff;
}
