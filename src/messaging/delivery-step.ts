import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { toApiError } from '../providers/provider-errors';
import type { ProviderOutcome } from '../providers/provider.types';
import type { MessageEntity } from './entities/message.entity';
import type { LogOrigin } from './log-origin';
import { MessageLogRepository } from './message-log.repository';
import { ProviderGateway, toOutbound } from './provider-gateway';
import { isProviderFailure, ProviderFailure } from './send-outcome';
import type { ValidatedMessage } from './validation/validated-message';
import type { AccountId } from '../common/account-id';

/**
 * One provider call for a paid, open message. `answered`: the provider's verdict. `error`: the call
 * failed without one (`handedOff`: the durable hand-off mark was set before it). `taken`: the mark
 * could not be set, because another sender settled or handed off the message meanwhile (a stalled
 * replica): no call was made.
 */
export type DeliveryResult =
  | { kind: 'answered'; outcome: ProviderOutcome }
  | { kind: 'error'; error: ProviderFailure; handedOff: boolean }
  | { kind: 'taken' };

/**
 * What is known about an earlier attempt that may have reached the provider (crash, lost lease):
 * `unseen` (the provider never saw it, or it never left: safe to send), `handed_off` (a provider
 * without lookup was called and its answer is lost), or the provider's answer to a lookup.
 */
export type PriorAttempt = { kind: 'unseen' } | { kind: 'handed_off' } | Exclude<DeliveryResult, { kind: 'taken' }>;

/** The delivery step: everything that talks to the provider about a message (hand-off mark, send, lookup). */
@Injectable()
export class DeliveryStep {
  constructor(
    private readonly gateway: ProviderGateway,
    private readonly log: MessageLogRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Hands the message to its channel's provider. A provider that cannot be asked later needs the
   * durable hand-off mark first, set only on a still-open message that has none (compare-and-set).
   */
  async attempt(accountId: AccountId, id: string, msg: ValidatedMessage, origin: LogOrigin): Promise<DeliveryResult> {
    const handedOff = !this.gateway.canLookup(msg.channel, accountId);
    if (handedOff && !(await this.log.markHandedOff(accountId, id, this.clock.now()))) return { kind: 'taken' };
    try {
      return { kind: 'answered', outcome: await this.gateway.send(toOutbound(id, accountId, msg, origin)) };
    } catch (err) {
      return { kind: 'error', error: providerFailure(err), handedOff };
    }
  }

  /** A provider with `lookup` is asked about the message; without one, its hand-off mark decides. */
  async prior(row: MessageEntity): Promise<PriorAttempt> {
    const channel = row.channel as ValidatedMessage['channel'];
    if (this.gateway.canLookup(channel, row.accountId)) {
      try {
        const seen = await this.gateway.lookup(channel, row.accountId, row.id);
        return seen ? { kind: 'answered', outcome: seen } : { kind: 'unseen' };
      } catch (err) {
        return { kind: 'error', error: providerFailure(err), handedOff: false };
      }
    }
    return row.handedOffAt === null || row.handedOffAt === undefined ? { kind: 'unseen' } : { kind: 'handed_off' };
  }
}

/** A failed call as one of the three provider failures (anything else the call threw is a PROVIDER_ERROR). */
function providerFailure(err: unknown): ProviderFailure {
  const e = toApiError(err);
  return isProviderFailure(e) ? e : (new ApiError('PROVIDER_ERROR', e.message) as ProviderFailure);
}
