import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ApiError } from '../../common/errors';
import { newId } from '../../common/ids';
import { iso } from '../../database/columns';
import { UnitOfWork } from '../../database/unit-of-work';
import { EVENT_SINK, type EventSink } from '../../messaging/events/event-sink';
import { INBOUND_KEYWORDS, type InboundKeywords } from '../../messaging/inbound/inbound-keywords';
import type { InboundSms, InboundSmsIntake } from '../../providers/provider-events';
import type { InboundSmsItem } from './dto/inbound-sms.response';
import { toInboundSmsItem } from './inbound-sms-query.service';
import { InboundSmsPartRecord, InboundSmsRecord, InboundSmsRepository } from './inbound-sms.repository';
import type { AccountId } from '../../common/account-id';

const ADDRESS_MAX = 32;
const PROVIDER_ID_MAX = 200;
/**
 * An SMS (or a part) equal to the latest one stored from the same number to the same destination
 * within this window is the SMSC delivering it again after our acknowledgement was lost.
 */
export const INBOUND_DEDUPE_WINDOW_MS = 10 * 60_000;
/** How long the parts of an incomplete concatenated SMS wait for the others before it is stored as partial. */
export const INBOUND_PART_HOLD_MS = 10 * 60_000;
/** Incomplete sets stored per sweep. */
const SWEEP_BATCH = 100;

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

const hash = (...parts: (string | number)[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/** A set that another replica (or a concurrent delivery) closed first: nothing to store. */
class SetAlreadyJoined extends Error {}

type NewSms = Omit<InboundSmsRecord, 'id' | 'accountId' | 'senderId'>;
/** The account an SMS belongs to, through the approved sender it was sent to. */
type SenderOwner = { senderId: string; accountId: AccountId };

/**
 * The INBOUND_SMS_INTAKE port: stores an SMS the SMSC delivered and, in the same unit of work, emits
 * `sms.received` to the account it was sent to. That account is the one with an approved sender
 * whose name is the SMS's destination (`+` and case ignored). When no account, or more than one,
 * has such a sender, the SMS is stored without an account and no event is emitted (logged).
 *
 * Concatenated SMS: each part is kept (inbound_sms_parts) until all `total` parts of its set (same
 * from, to, reference and total) arrived, then the parts are joined in `seq` order into one SMS
 * that keeps them. A set still incomplete INBOUND_PART_HOLD_MS after its first part is stored as
 * it is (`partsReceived < partsTotal`, the missing parts left out; no keyword handling) by
 * `storeIncomplete`, which a periodic sweep runs; a late part after that starts a new set.
 *
 * Redelivery: an SMS whose from, to and text equal the latest SMS stored for that pair within
 * INBOUND_DEDUPE_WINDOW_MS is acknowledged and not stored again; a part already open in its set,
 * or joined within the window with the same text, likewise. Comparing with the LATEST one only
 * keeps "STOP", "START", "STOP" three messages.
 *
 * Keywords: a complete SMS to an account is handed to INBOUND_KEYWORDS before it is stored; if that
 * fails nothing is stored and the SMSC is told to retry.
 */
@Injectable()
export class InboundSmsService implements InboundSmsIntake {
  private readonly logger = new Logger(InboundSmsService.name);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: InboundSmsRepository,
    @Inject(EVENT_SINK) private readonly events: EventSink,
    @Inject(INBOUND_KEYWORDS) private readonly keywords: InboundKeywords,
  ) {}

  async accept(sms: InboundSms): Promise<void> {
    const to = sms.to.trim().slice(0, ADDRESS_MAX);
    const from = sms.from.trim().slice(0, ADDRESS_MAX);
    if (sms.part) return this.acceptPart(sms, from, to);
    const dedupeKey = hash('sms', from, to, sms.text);
    const latest = await this.uow.transaction((tx) =>
      this.repo.latestKeyOfPair(tx, from, to, sms.at - INBOUND_DEDUPE_WINDOW_MS),
    );
    if (latest === dedupeKey) return this.logger.log(`inbound SMS from ${from} to "${to}" redelivered: kept once`);
    await this.store(
      {
        fromAddress: from,
        toAddress: to,
        text: sms.text,
        providerMessageId: sms.providerMessageId?.slice(0, PROVIDER_ID_MAX) ?? null,
        receivedAt: sms.at,
        partsTotal: 1,
        partsReceived: 1,
        dedupeKey,
      },
      null,
    );
  }

  /**
   * An SMS to one of `accountId`'s approved senders (`to`, or the default sender when null), as the
   * test-mode controls simulate one: keywords, then the SMS and `sms.received` in one unit, exactly as
   * a whole SMS from the SMSC, but for this account whatever other accounts hold the name (a live
   * account and its test mode may both). Never a redelivery, and stored without a dedupe key, so it
   * never makes a later SMS from the SMSC look like one. SENDER_NOT_APPROVED when there is no such sender.
   */
  async acceptForAccount(
    accountId: AccountId,
    sms: { from: string; to: string | null; text: string; at: number },
  ): Promise<InboundSmsItem> {
    const given = sms.to?.trim() ?? null;
    const keys = given === null ? [null] : destinationKeys(given);
    const sender = keys.length
      ? await this.uow.transaction((tx) => this.repo.approvedSenderOf(tx, accountId, keys[0]))
      : null;
    if (!sender)
      throw new ApiError(
        'SENDER_NOT_APPROVED',
        given === null
          ? 'The account has no default approved SMS sender to receive the SMS; name one in `to`'
          : `to: ${given.slice(0, 40)} is not an approved SMS sender of the account`,
      );
    const record = await this.store(
      {
        fromAddress: sms.from.trim().slice(0, ADDRESS_MAX),
        toAddress: (given ?? sender.name).slice(0, ADDRESS_MAX),
        text: sms.text,
        providerMessageId: null,
        receivedAt: sms.at,
        partsTotal: 1,
        partsReceived: 1,
        dedupeKey: null,
      },
      null,
      sender,
    );
    // Without a set to join, storing never yields to another writer.
    if (!record) throw new Error('inbound SMS not stored');
    return toInboundSmsItem(record, accountId, []);
  }

  /** Stores the sets whose first open part arrived before `now - INBOUND_PART_HOLD_MS`; how many. */
  async storeIncomplete(now: number): Promise<number> {
    const groups = await this.uow.transaction((tx) =>
      this.repo.staleGroups(tx, now - INBOUND_PART_HOLD_MS, SWEEP_BATCH),
    );
    let stored = 0;
    for (const groupKey of groups) {
      const open = await this.uow.transaction((tx) => this.repo.openParts(tx, groupKey));
      if (open.length === 0) continue;
      const first = open[0];
      const joined = await this.store(
        {
          fromAddress: first.fromAddress,
          toAddress: first.toAddress,
          text: open.map((p) => p.text).join(''),
          providerMessageId: null,
          receivedAt: Math.max(...open.map((p) => p.receivedAt)),
          partsTotal: first.total,
          partsReceived: open.length,
          dedupeKey: null,
        },
        { groupKey, newPart: null },
      );
      if (joined) stored++;
    }
    return stored;
  }

  private async acceptPart(sms: InboundSms, from: string, to: string): Promise<void> {
    const part = sms.part!;
    const groupKey = hash('set', from, to, part.ref, part.total);
    const partKey = hash('part', groupKey, part.seq, sms.text);
    const { open, duplicate } = await this.uow.transaction(async (tx) => {
      const parts = await this.repo.openParts(tx, groupKey);
      const again =
        parts.some((p) => p.seq === part.seq) ||
        (await this.repo.joinedPartSince(tx, partKey, sms.at - INBOUND_DEDUPE_WINDOW_MS));
      return { open: parts, duplicate: again };
    });
    if (duplicate) return this.logger.log(`inbound SMS part ${part.seq}/${part.total} from ${from} redelivered`);
    const record: InboundSmsPartRecord = {
      id: newId('ismp'),
      groupKey,
      partKey,
      seq: part.seq,
      total: part.total,
      fromAddress: from,
      toAddress: to,
      text: sms.text,
      receivedAt: sms.at,
      inboundSmsId: null,
    };
    if (open.length + 1 < part.total) return this.uow.transaction((tx) => this.repo.insertPart(tx, record));
    const parts = [...open, record].sort((a, b) => a.seq - b.seq);
    const text = parts.map((p) => p.text).join('');
    await this.store(
      {
        fromAddress: from,
        toAddress: to,
        text,
        providerMessageId: null,
        receivedAt: sms.at,
        partsTotal: part.total,
        partsReceived: part.total,
        dedupeKey: hash('sms', from, to, text),
      },
      { groupKey, newPart: record },
    );
  }

  /**
   * Keywords first (a complete SMS to an account), then one unit of work: the SMS, its parts joined
   * to it, its event. The account is the one whose approved sender has the destination's name, unless
   * `known` says. Null when the set was joined by someone else meanwhile.
   */
  private async store(
    sms: NewSms,
    set: { groupKey: string; newPart: InboundSmsPartRecord | null } | null,
    known?: SenderOwner,
  ): Promise<InboundSmsRecord | null> {
    const id = newId('isms');
    const owner = known ?? (await this.ownerByName(id, sms.toAddress));
    if (owner && sms.partsReceived === sms.partsTotal)
      await this.keywords.handle({
        accountId: owner.accountId,
        channel: 'local_sms',
        from: sms.fromAddress,
        to: sms.toAddress,
        text: sms.text,
        inboundMessageId: id,
        at: sms.receivedAt,
      });
    const record: InboundSmsRecord = {
      ...sms,
      id,
      accountId: owner?.accountId ?? null,
      senderId: owner?.senderId ?? null,
    };
    try {
      await this.uow.transaction(async (tx) => {
        await this.repo.insert(tx, record);
        if (set) {
          if (set.newPart) await this.repo.insertPart(tx, set.newPart);
          if ((await this.repo.joinParts(tx, set.groupKey, id)) === 0) throw new SetAlreadyJoined();
        }
        if (owner)
          await this.events.record(tx, [
            {
              accountId: owner.accountId,
              type: 'sms.received',
              data: { ...toInboundSmsView(record) },
              at: record.receivedAt,
            },
          ]);
      });
    } catch (err) {
      if (err instanceof SetAlreadyJoined) return null;
      throw err;
    }
    return record;
  }

  /** The one account with an approved sender of that name, or null (none, or several: logged). */
  private async ownerByName(id: string, toAddress: string): Promise<SenderOwner | null> {
    return this.uow.transaction(async (tx) => {
      const owners = await this.repo.approvedSendersAnyByName(tx, destinationKeys(toAddress));
      const accounts = new Set(owners.map((o) => o.accountId));
      if (accounts.size !== 1)
        this.logger.warn(
          `inbound SMS ${id} to "${toAddress}" kept without an account: ${accounts.size === 0 ? 'no approved sender has that name' : `${accounts.size} accounts have that sender name`}`,
        );
      return accounts.size === 1 ? owners[0] : null;
    });
  }
}

/** Sender names are kept lower-cased without `+` (at most 11 characters): the keys `to` may match. */
export function destinationKeys(to: string): string[] {
  const key = to.replace(/^\+/, '').toLowerCase();
  return key.length > 0 && key.length <= 11 ? [key] : [];
}
