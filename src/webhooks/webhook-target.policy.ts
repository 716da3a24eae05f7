import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/errors';
import { isPublicAddress } from './address-blocklist';

const MAX_URL_LENGTH = 2048;
const DNS_TIMEOUT_MS = 3000;

export type TargetCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * SSRF rules for webhook targets: https only, no credentials in the URL, and every address the host
 * resolves to must be public. WEBHOOK_ALLOW_INSECURE (development, tests) lifts both rules.
 * Checked when a URL is configured and again, on the resolved address actually used, at send time.
 */
@Injectable()
export class WebhookTargetPolicy {
  constructor(private readonly config: AppConfig) {}

  get allowInsecure(): boolean {
    return this.config.webhookAllowInsecure;
  }

  /** Syntax and scheme only (no DNS). */
  checkSyntax(raw: unknown): TargetCheck {
    if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'must be a URL' };
    if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `must be at most ${MAX_URL_LENGTH} characters` };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: 'must be a valid absolute URL' };
    }
    const insecureOk = this.allowInsecure && url.protocol === 'http:';
    if (url.protocol !== 'https:' && !insecureOk) return { ok: false, reason: 'must use https' };
    if (url.username || url.password) return { ok: false, reason: 'must not contain credentials' };
    if (!url.hostname) return { ok: false, reason: 'must have a host' };
    return { ok: true, url };
  }

  /** Full check including DNS resolution of the host. */
  async check(raw: unknown): Promise<TargetCheck> {
    const syntax = this.checkSyntax(raw);
    if (!syntax.ok || this.allowInsecure) return syntax;
    const host = syntax.url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return isPublicAddress(host) ? syntax : { ok: false, reason: 'must point to a public address' };
    let addresses: string[];
    try {
      addresses = await withTimeout(lookup(host, { all: true, verbatim: true }), DNS_TIMEOUT_MS).then((r) => r.map((a) => a.address));
    } catch {
      return { ok: false, reason: 'host cannot be resolved' };
    }
    if (addresses.length === 0) return { ok: false, reason: 'host cannot be resolved' };
    if (!addresses.every(isPublicAddress)) return { ok: false, reason: 'must point to a public address' };
    return syntax;
  }

  /** Throws 400 VALIDATION_ERROR naming `field` when the target is not allowed. */
  async assertAllowed(raw: unknown, field = 'url'): Promise<void> {
    const result = await this.check(raw);
    if (!result.ok) throw ApiError.validation(`${field} ${result.reason}`);
  }

  /** Send-time check of an address the connection is about to use. */
  addressAllowed(address: string): boolean {
    return this.allowInsecure || isPublicAddress(address);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => { clearTimeout(timer); resolve(v); },
      (e: unknown) => { clearTimeout(timer); reject(e instanceof Error ? e : new Error(String(e))); },
    );
  });
}
