import type { AccountId } from '../../common/account-id';
import type { ApprovedSender, DestinationCountries, MarketingRules, TemplateForSend } from './lookups';
import type { ParsedPhone } from './recipient-rules';

export const CACHE_MAX = 100_000;

/** The SMS sender a message goes out from: the platform's default sender is transactional. */
export type SmsSender = { name: string; type: ApprovedSender['type'] };

/**
 * Per-account memo of everything a row needs from the database (sender, templates, sessions) and of
 * normalised recipients, so a bulk job validates thousands of rows per lookup. Short-lived: one per
 * request or per bulk validation run.
 */
export class ValidationContext {
  readonly senders = new Map<string, Promise<ApprovedSender | null>>();
  defaultSender: Promise<SmsSender> | null = null;
  /** The account's marketing rules (footer, link hosts, window), read once per context. */
  marketingRules: Promise<MarketingRules> | null = null;
  readonly templates = new Map<string, Promise<TemplateForSend | null>>();
  readonly sessions = new Map<string, Promise<{ name: string; status: string; kind: string }>>();
  readonly phones = new Map<string, ParsedPhone | null>();
  /** Geo permissions, read once per context (a bulk job of a million rows reads them once). */
  destinations: Promise<DestinationCountries> | null = null;
  /** SSRF verdict per host:port of attachment / header media URLs (true = allowed), so DNS runs once per host. */
  readonly targetHosts = new Map<string, Promise<boolean>>();
  constructor(readonly accountId: AccountId) {}
}

/** Remembers a lookup for the context's life; a failed lookup (database error) is not remembered. */
export function memo<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = cache.get(key);
  if (!p) {
    p = load();
    p.catch(() => cache.delete(key));
    if (cache.size < CACHE_MAX) cache.set(key, p);
  }
  return p;
}
