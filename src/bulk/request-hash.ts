import { createHash, Hash } from 'node:crypto';
import { UnitOfWork } from '../database/unit-of-work';
import { sql } from '../database/sql';
import { canonicalJson } from './canonical-json';

/**
 * Idempotency fingerprints of a bulk request (`name`, `messagesPerSecond`, `messages` only).
 * `raw`: over the element texts as sent: cheap, computed for every request. `canonical`: over
 * canonical JSON (sorted keys): computed only when two raw fingerprints differ, from the stored
 * rows of a job or while streaming a replay, so first-time intake never pays for it.
 */
export class RequestFingerprint {
  private readonly raw = createHash('sha256');
  private readonly canon: Hash | null;

  constructor(withCanonical: boolean) {
    this.canon = withCanonical ? createHash('sha256') : null;
  }

  add(text: string, parsed: unknown): void {
    this.raw.update(text);
    this.raw.update('\n');
    if (this.canon) {
      this.canon.update(canonicalJson(parsed));
      this.canon.update('\n');
    }
  }

  finish(name: string | null, mps: number): { raw: string; canonical: string | null } {
    return { raw: combine(name, mps, this.raw.digest('hex')), canonical: this.canon ? combine(name, mps, this.canon.digest('hex')) : null };
  }
}

function combine(name: string | null, mps: number, messages: string): string {
  return createHash('sha256').update(canonicalJson({ name, messagesPerSecond: mps })).update('|').update(messages).digest('hex');
}

/** Canonical fingerprint of a stored job, from its rows (payload = element text as sent). */
export async function canonicalOfStoredJob(db: UnitOfWork, jobId: string, name: string | null, mps: number): Promise<string> {
  const h = createHash('sha256');
  for (let from = 0; ; ) {
    const rows = await db.rows(sql('SELECT idx, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT 5000', jobId, from));
    if (!rows.length) break;
    for (const r of rows) {
      h.update(canonicalJson(JSON.parse(String(r.payload))));
      h.update('\n');
    }
    from = Number(rows[rows.length - 1].idx) + 1;
  }
  return combine(name, mps, h.digest('hex'));
}
