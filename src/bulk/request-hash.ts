import { createHash, Hash } from 'node:crypto';
import type { BulkRowRepository } from './bulk-row.repository';
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
    return {
      raw: combine(name, mps, this.raw.digest('hex')),
      canonical: this.canon ? combine(name, mps, this.canon.digest('hex')) : null,
    };
  }
}

function combine(name: string | null, mps: number, messages: string): string {
  return createHash('sha256')
    .update(canonicalJson({ name, messagesPerSecond: mps }))
    .update('|')
    .update(messages)
    .digest('hex');
}

/** Canonical fingerprint of a stored job, from its rows (payload = element text as sent). */
export async function canonicalOfStoredJob(
  rows: BulkRowRepository,
  jobId: string,
  name: string | null,
  mps: number,
): Promise<string> {
  const h = createHash('sha256');
  for (let from = 0; ;) {
    const page = await rows.payloads(jobId, from, 5000);
    if (!page.length) break;
    for (const r of page) {
      h.update(canonicalJson(JSON.parse(r.payload)));
      h.update('\n');
    }
    from = page[page.length - 1].idx + 1;
  }
  return combine(name, mps, h.digest('hex'));
}
