import { Inject, Injectable } from '@nestjs/common';
import { iso } from '../../database/columns';
import { query, Row, sql, SqlParam, str } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import type { MessageEntity, MessageStatus } from '../entities/message.entity';
import { DomainEvent, EVENT_SINK, EventSink, EventType } from '../events/event-sink';
import { toMessageView } from '../message-view';

/** One status a message reached: who moved it (our API / pipeline, or a provider receipt) and what the provider said. */
export interface TrailStep {
  status: MessageStatus;
  at: number;
  source: 'api' | 'provider';
  providerStatus: string | null;
  errorCode: string | null;
}

/** A message after a status change, and the steps of that change (its `sequence` counts the last). */
export interface StatusMove {
  row: MessageEntity;
  steps: TrailStep[];
}

export interface HistoryEntry {
  status: MessageStatus;
  at: string;
  source: 'api' | 'provider';
  providerStatus: string | null;
  errorCode: string | null;
}

function toHistoryEntry(r: Row): HistoryEntry {
  return {
    status: String(r.status) as MessageStatus,
    at: iso(Number(r.at)) as string,
    source: r.source === 'provider' ? 'provider' : 'api',
    providerStatus: str(r.provider_status),
    errorCode: str(r.error_code),
  };
}

const EVENT_OF: Partial<Record<MessageStatus, EventType>> = {
  sent: 'message.sent',
  delivered: 'message.delivered',
  read: 'message.read',
  failed: 'message.failed',
};

/**
 * The trail every status change leaves, in the unit of work of the change: its rows in
 * message_status_history (keyed by message and sequence) and its `message.*` events through the
 * EVENT_SINK port. One multi-row INSERT and one record() per call, whatever the number of messages,
 * so a bulk window's moves cost two statements more, not two per message.
 */
@Injectable()
export class StatusTrail {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(EVENT_SINK) private readonly sink: EventSink,
  ) {}

  /** Rows of freshly inserted messages (sequence 1); they carry no event (queued and scheduled are not subscribable). */
  firstSteps(rows: { id: string; status: MessageStatus }[], at: number): Promise<void> {
    return this.insert(
      rows.map((r) => ({
        messageId: r.id,
        seq: 1,
        step: { status: r.status, at, source: 'api', providerStatus: null, errorCode: null },
      })),
    );
  }

  /** Writes the history and events of these moves; must run inside the unit of work that made them. */
  async record(moves: readonly StatusMove[]): Promise<void> {
    if (!moves.length) return;
    await this.uow.transaction(async (tx) => {
      // Events only for accounts that may get them: the message view is built once per such move.
      const listening = this.sink.listeners
        ? await this.sink.listeners(tx, [...new Set(moves.map((m) => m.row.accountId))])
        : null;
      const rows: { messageId: string; seq: number; step: TrailStep }[] = [];
      const events: DomainEvent[] = [];
      for (const { row, steps } of moves) {
        let view: ReturnType<typeof toMessageView> | null = null;
        steps.forEach((step, k) => {
          const seq = Number(row.sequence) - steps.length + 1 + k;
          rows.push({ messageId: row.id, seq, step });
          const type = EVENT_OF[step.status];
          if (!type || (listening && !listening.has(row.accountId))) return;
          view ??= toMessageView(row);
          events.push({ accountId: row.accountId, type, at: step.at, data: { ...view, sequence: seq } });
        });
      }
      await this.insert(rows);
      if (events.length) await this.sink.record(tx, events);
    });
  }

  /** The history of a message the caller has read for its account, oldest first. */
  async historyOf(messageId: string): Promise<HistoryEntry[]> {
    return this.uow.read(
      query(
        toHistoryEntry,
        sql(
          'SELECT status, at, source, provider_status, error_code FROM message_status_history WHERE message_id = ? ORDER BY seq',
          messageId,
        ),
      ),
    );
  }

  private async insert(rows: { messageId: string; seq: number; step: TrailStep }[]): Promise<void> {
    if (!rows.length) return;
    const params: SqlParam[] = [];
    for (const { messageId, seq, step } of rows)
      params.push(
        messageId,
        seq,
        step.status,
        step.at,
        step.source,
        step.providerStatus?.slice(0, 100) ?? null,
        step.errorCode,
      );
    await this.uow.run({
      sql: `INSERT INTO message_status_history (message_id, seq, status, at, source, provider_status, error_code) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      params,
    });
  }
}
