import { Inject, Injectable, Logger } from '@nestjs/common';
import { newId } from '../../common/ids';
import { iso } from '../../database/columns';
import { UnitOfWork } from '../../database/unit-of-work';
import { EVENT_SINK, type EventSink } from '../../messaging/events/event-sink';
import type { InboundSms, InboundSmsIntake } from '../../providers/provider-events';
import { InboundSmsRecord, InboundSmsRepository } from './inbound-sms.repository';

const ADDRESS_MAX = 32;
const PROVIDER_ID_MAX = 200;

/** The `data` of an `sms.received` event. */
export interface InboundSmsView {
  id: string;
  from: string;
  to: string;
  text: string;
  senderId: string | null;
  receivedAt: string;
}

export const toInboundSmsView = (r: InboundSmsRecord): InboundSmsView => ({
  id: r.id,
  from: r.fromAddress,
  to: r.toAddress,
  text: r.text,
  senderId: r.senderId,
  receivedAt: iso(r.receivedAt) as string,
});

/**
 * The INBOUND_SMS_INTAKE port: stores an SMS the SMSC delivered and, in the same unit of work, emits
 * `sms.received` to the account it was sent to. That account is the one with an approved sender
 * whose name is the SMS's destination (`+` and case ignored). When no account, or more than one,
 * has such a sender, the SMS is stored without an account and no event is emitted (logged).
 */
@Injectable()
export class InboundSmsService implements InboundSmsIntake {
  private readonly logger = new Logger(InboundSmsService.name);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: InboundSmsRepository,
    @Inject(EVENT_SINK) private readonly events: EventSink,
  ) {}

  async accept(sms: InboundSms): Promise<void> {
    const to = sms.to.trim().slice(0, ADDRESS_MAX);
    await this.uow.transaction(async (tx) => {
      const owners = await this.repo.approvedSendersAnyByName(tx, destinationKeys(to));
      const accounts = new Set(owners.map((o) => o.accountId));
      const owner = accounts.size === 1 ? owners[0] : null;
      const record: InboundSmsRecord = {
        id: newId('isms'),
        accountId: owner?.accountId ?? null,
        senderId: owner?.senderId ?? null,
        fromAddress: sms.from.trim().slice(0, ADDRESS_MAX),
        toAddress: to,
        text: sms.text,
        providerMessageId: sms.providerMessageId?.slice(0, PROVIDER_ID_MAX) ?? null,
        receivedAt: sms.at,
      };
      await this.repo.insert(tx, record);
      if (!owner) {
        this.logger.warn(
          `inbound SMS ${record.id} to "${to}" kept without an account: ${accounts.size === 0 ? 'no approved sender has that name' : `${accounts.size} accounts have that sender name`}`,
        );
        return;
      }
      await this.events.record(tx, [
        {
          accountId: owner.accountId,
          type: 'sms.received',
          data: { ...toInboundSmsView(record) },
          at: record.receivedAt,
        },
      ]);
    });
  }
}

/** Sender names are kept lower-cased without `+` (at most 11 characters): the keys `to` may match. */
export function destinationKeys(to: string): string[] {
  const key = to.replace(/^\+/, '').toLowerCase();
  return key.length > 0 && key.length <= 11 ? [key] : [];
}
