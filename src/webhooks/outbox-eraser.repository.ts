import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../common/erasure/recipient-erasers';
import { query, Row, sql } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';

/** Fields of an event body that carry what a person wrote or was sent: removed by an erasure. */
const CONTENT_KEYS = new Set(['text', 'body', 'caption', 'variables', 'content', 'subject']);

/** `value` with every form of the target replaced by the hash and content fields removed. */
export function eraseFrom(value: unknown, forms: readonly string[], hash: string): unknown {
  if (typeof value === 'string') return forms.reduce((s, f) => s.split(f).join(hash), value);
  if (Array.isArray(value)) return value.map((v) => eraseFrom(v, forms, hash));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!CONTENT_KEYS.has(k)) out[k] = eraseFrom(v, forms, hash);
    return out;
  }
  return value;
}

/** A LIKE pattern matching `s` anywhere (`!` escapes LIKE's wildcards, the same on every dialect). */
const containing = (s: string): string => `%${s.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/** A pending delivery whose body names an erasure's target. */
interface PendingBody {
  id: string;
  body: string;
}

function toPendingBody(r: Row): PendingBody {
  return { id: String(r.id), body: String(r.body) };
}

/**
 * The outbox's part of an erasure: a delivery still `pending` whose body names the target gets its
 * body rewritten (the target -> hash, content fields removed) before it is signed and sent; delivered
 * and failed ones are kept as they are until the delivery log's purge. Bodies are searched only among
 * the account's pending deliveries (ix_webhook_deliveries_account_status), longest form first.
 */
@Injectable()
export class OutboxEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'webhookDeliveries';

  constructor(
    private readonly uow: UnitOfWork,
    private readonly erasers: RecipientErasers,
  ) {}

  onModuleInit(): void {
    this.erasers.register(this);
  }

  async erase(t: ErasureTarget, limit: number): Promise<number> {
    const forms = [...t.forms].sort((a, b) => b.length - a.length);
    const rows = await this.uow.read(
      query(
        toPendingBody,
        sql(
          `SELECT id, body FROM webhook_deliveries WHERE account_id = ? AND status = 'pending' AND (${forms.map(() => "body LIKE ? ESCAPE '!'").join(' OR ')}) ORDER BY id LIMIT ${limit}`,
          t.accountId,
          ...forms.map(containing),
        ),
      ),
    );
    let erased = 0;
    for (const r of rows) {
      let body: unknown;
      try {
        body = JSON.parse(r.body);
      } catch {
        continue;
      }
      const next = JSON.stringify(eraseFrom(body, forms, t.hash));
      if (next === r.body) continue;
      erased += await this.uow.exec(
        sql(
          "UPDATE webhook_deliveries SET body = ? WHERE id = ? AND account_id = ? AND status = 'pending'",
          next,
          r.id,
          t.accountId,
        ),
      );
    }
    return erased;
  }
}
