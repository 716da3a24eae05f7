import { Injectable } from '@nestjs/common';
import type { Tx } from '../database/unit-of-work';
import type { DomainEvent, EventSink } from '../messaging/events/event-sink';

/**
 * The EVENT_SINK port: fans events out to the account's subscribed event endpoints in the outbox.
 * (Until event endpoints exist, no account subscribes to anything, so there is nothing to write.)
 */
@Injectable()
export class OutboxEventSink implements EventSink {
  async record(_tx: Tx, _events: readonly DomainEvent[]): Promise<void> {
    // Intentionally empty until endpoints exist.
  }
}
