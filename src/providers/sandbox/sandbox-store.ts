import { newId } from '../../common/ids';
import { isUniqueViolation } from '../../database/db-errors';
import { decoders, query, sql, SqlParam } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import type { AccountId } from '../../common/account-id';
import {
  SandboxDeliveryFilter,
  SandboxDeliveryInput,
  SandboxDeliveryView,
  SandboxFault,
  SandboxFaultKind,
  SandboxOutcome,
  toDeliveryView,
  toPendingFault,
  toSandboxOutcome,
} from './sandbox-records';

export { SANDBOX_FAULT_KINDS } from './sandbox-records';
export type {
  SandboxDeliveryFilter,
  SandboxDeliveryInput,
  SandboxDeliveryView,
  SandboxFault,
  SandboxFaultKind,
} from './sandbox-records';

/** Concurrent group inserts of deliveries (pooled connections overlap their commits; the embedded database runs them in turn). */
const MAX_FLUSHES = 4;
interface QueuedDelivery {
  values: SqlParam[];
  resolve: (fresh: boolean) => void;
  reject: (err: unknown) => void;
}
function answerOne(b: QueuedDelivery, err: unknown): void {
  if (isUniqueViolation(err)) b.resolve(false);
  else b.reject(err);
}

let sequence = 0;
/** Time-sortable like newId(), plus a process counter so deliveries of one millisecond keep their order. */
function deliveryId(): string {
  const base = newId('sbx');
  sequence = (sequence + 1) % 32 ** 4;
  return `${base.slice(0, 14)}${sequence.toString(32).padStart(4, '0')}${base.slice(14, 24)}`;
}

/**
 * The sandbox's memory, in the database so every replica (and a restarted one) sees the same
 * deliveries and faults. Faults are consumed with a conditional decrement; while none exist a
 * replica only re-checks every `refreshMs`, so the common no-fault send costs no fault query.
 */
export class SandboxStore {
  private hasFaults = true;
  private checking: Promise<void> | null = null;
  private checkedUntil = 0;
  private readonly queue: QueuedDelivery[] = [];
  private flushes = 0;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly refreshMs: number,
  ) {}

  /**
   * Records a delivery; false when this message id was already recorded (idempotent resend).
   * Group insert: deliveries arriving while `MAX_FLUSHES` inserts are in flight (many bulk jobs at
   * once) are written together by one multi-row INSERT; if that one hits a duplicate, each of its
   * deliveries is inserted alone so only the duplicate answers false.
   */
  record(d: SandboxDeliveryInput, now: number): Promise<boolean> {
    const values = [
      deliveryId(),
      d.messageId,
      d.accountId,
      d.channel,
      d.to,
      d.sender,
      d.text,
      d.subject,
      d.bulkJobId,
      d.rowIndex,
      d.outcome,
      d.providerMessageId,
      now,
      d.receipt?.dueAt ?? null,
      d.receipt?.stage ?? null,
      d.instantReceipts ? 1 : 0,
    ];
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ values, resolve, reject });
      if (this.flushes < MAX_FLUSHES) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushes++;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, 500);
        try {
          await this.insert(batch.map((b) => b.values));
          for (const b of batch) b.resolve(true);
        } catch (err) {
          if (batch.length === 1 || !isUniqueViolation(err)) for (const b of batch) answerOne(b, err);
          else
            for (const b of batch)
              await this.insert([b.values]).then(
                () => b.resolve(true),
                (e: unknown) => answerOne(b, e),
              );
        }
      }
    } finally {
      this.flushes--;
    }
  }

  private async insert(rows: SqlParam[][]): Promise<void> {
    const values = rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    await this.uow.run({
      sql: `INSERT INTO sandbox_deliveries (id, message_id, account_id, channel, recipient, sender, text, subject, bulk_job_id, row_index, outcome, provider_message_id, delivered_at, receipt_due_at, receipt_stage, instant_receipts) VALUES ${values}`,
      params: rows.flat(),
    });
  }

  async find(messageId: string): Promise<SandboxOutcome | null> {
    const rows = await this.uow.read(
      query(
        toSandboxOutcome,
        sql('SELECT outcome, provider_message_id FROM sandbox_deliveries WHERE message_id = ?', messageId),
      ),
    );
    return rows[0] ?? null;
  }

  /** Delivered (not rejected) messages, oldest first. */
  async list(f: SandboxDeliveryFilter): Promise<SandboxDeliveryView[]> {
    const where = ["outcome = 'sent'"];
    const params: SqlParam[] = [];
    const add = (sql: string, v: string | undefined) => {
      if (v !== undefined && v !== '') {
        where.push(sql);
        params.push(v);
      }
    };
    add('account_id = ?', f.accountId);
    add('channel = ?', f.channel);
    add('recipient = ?', f.to);
    add('bulk_job_id = ?', f.bulkJobId);
    return this.uow.read(
      query(toDeliveryView, {
        sql: `SELECT * FROM sandbox_deliveries WHERE ${where.join(' AND ')} ORDER BY delivered_at, id LIMIT ${Math.floor(f.limit)}`,
        params,
      }),
    );
  }

  async addFault(
    f: {
      channel: string | null;
      accountId: AccountId | null;
      kind: SandboxFaultKind;
      count: number;
      delayMs: number | null;
    },
    now: number,
  ): Promise<string> {
    const id = newId('flt');
    await this.uow.run(
      sql(
        'INSERT INTO sandbox_faults (id, channel, account_id, kind, remaining, delay_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        id,
        f.channel,
        f.accountId,
        f.kind,
        f.count,
        f.delayMs,
        now,
      ),
    );
    this.hasFaults = true;
    return id;
  }

  async clearFaults(): Promise<number> {
    const rows = await this.uow.read(
      query(decoders.n, sql('SELECT COUNT(*) AS n FROM sandbox_faults WHERE remaining > 0')),
    );
    await this.uow.run(sql('DELETE FROM sandbox_faults'));
    this.checkedUntil = 0;
    return rows[0] ?? 0;
  }

  /**
   * Clears the faults of one account (test mode: the owner clears only their own); returns how many
   * were still pending. Faults of every account (accountId null) are the operator's and stay.
   */
  async clearFaultsOf(accountId: AccountId): Promise<number> {
    const pending = await this.uow.exec(
      sql('DELETE FROM sandbox_faults WHERE account_id = ? AND remaining > 0', accountId),
    );
    await this.uow.exec(sql('DELETE FROM sandbox_faults WHERE account_id = ?', accountId));
    return pending;
  }

  /** Consumes one fault matching this channel and account (oldest first), or null. */
  async takeFault(channel: string, accountId: AccountId, now: number): Promise<SandboxFault | null> {
    if (!this.hasFaults) {
      if (now < this.checkedUntil) return null;
      // One look at a time: the sends of a thousand bulk windows arriving together wait for the
      // look-up under way instead of each making their own.
      this.checking ??= this.anyFault()
        .then(
          (any) => this.noted(any, now),
          () => undefined,
        )
        .finally(() => (this.checking = null));
      await this.checking;
      if (!this.hasFaults) return null;
    }
    const rows = await this.uow.read(
      query(
        toPendingFault,
        sql(
          'SELECT id, kind, delay_ms FROM sandbox_faults WHERE remaining > 0 AND (channel IS NULL OR channel = ?) AND (account_id IS NULL OR account_id = ?) ORDER BY id',
          channel,
          accountId,
        ),
      ),
    );
    for (const f of rows) {
      const taken = await this.uow.exec(
        sql('UPDATE sandbox_faults SET remaining = remaining - 1 WHERE id = ? AND remaining >= 1', f.id),
      );
      if (taken === 1) return { kind: f.kind, delayMs: f.delayMs };
    }
    // None for this call. While no fault exists at all, sends skip the lookup (re-checked every
    // refreshMs for faults added on another replica); a fault of another account keeps it on.
    this.noted(rows.length > 0 || (await this.anyFault()), now);
    return null;
  }

  private async anyFault(): Promise<boolean> {
    return (
      (await this.uow.read(query(decoders.id, sql('SELECT id FROM sandbox_faults WHERE remaining > 0 LIMIT 1'))))
        .length > 0
    );
  }

  private noted(hasFaults: boolean, now: number): void {
    this.hasFaults = hasFaults;
    this.checkedUntil = now + this.refreshMs;
  }
}
