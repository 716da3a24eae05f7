import { Inject, Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { AppConfig } from '../../config/app-config';
import { ApiError, ErrorCode } from '../errors';
import { DNS_RESOLVER, DnsResolver, ResolvedAddress } from './dns-resolver';
import { addressAllowed, bareHost, parseTarget, TargetRules } from './target-rules';

/** A checked target: the parsed URL and the one address a connection to it must use. */
export interface PinnedTarget {
  url: URL;
  address: ResolvedAddress;
}

/**
 * The one text for every refused target, whatever the reason: a caller must not be able to tell
 * "does not resolve" from "resolves to a private address" (no DNS oracle).
 */
export function refusedTargetText(field: string): string {
  return `${field} is not an allowed target: it must be an https URL to a public host on an allowed port, without credentials`;
}

/** Thrown by the policy and the guarded fetcher; `reason` is for logs only. */
export class TargetRefusedError extends Error {
  constructor(readonly reason: string) {
    super(`target refused: ${reason}`);
    this.name = 'TargetRefusedError';
  }
}

/**
 * The one implementation of "may our server reach this URL": webhook targets, attachment and
 * template media URLs (at validation and again at fetch time), and every redirect hop.
 */
@Injectable()
export class TargetPolicy {
  readonly rules: TargetRules;

  constructor(
    config: AppConfig,
    @Inject(DNS_RESOLVER) private readonly resolver: DnsResolver,
  ) {
    this.rules = { allowInsecure: config.outbound.allowInsecure, allowedPorts: config.outbound.allowedPorts };
  }

  /** Syntax, scheme, credentials, port and serialisation (no DNS). Throws TargetRefusedError. */
  parse(raw: unknown): URL {
    const parsed = parseTarget(raw, this.rules);
    if (!parsed.ok) throw new TargetRefusedError(parsed.reason);
    return parsed.url;
  }

  /**
   * Resolves the host once and checks every address it has; the first is the one to connect to.
   * An IP literal is checked as is.
   */
  async pin(url: URL): Promise<PinnedTarget> {
    const host = bareHost(url);
    const family = isIP(host);
    let addresses: ResolvedAddress[];
    if (family !== 0) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
    else {
      try {
        addresses = await this.resolver.resolve(host);
      } catch (err) {
        throw new TargetRefusedError(`${host} does not resolve (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    if (addresses.length === 0) throw new TargetRefusedError(`${host} has no address`);
    const refused = addresses.find((a) => !addressAllowed(a.address, this.rules));
    if (refused) throw new TargetRefusedError(`${host} resolves to ${refused.address}`);
    return { url, address: addresses[0] };
  }

  /**
   * Validation-time check of a user-supplied URL; returns its normalised form (what adapters get).
   * With insecure targets allowed there is no address rule, so no DNS either.
   */
  async normalise(raw: unknown): Promise<string> {
    const url = this.parse(raw);
    if (!this.rules.allowInsecure) await this.pin(url);
    return url.href;
  }

  /** normalise() as an API error: `code` (400) with the one refusal text naming `field`. */
  async assertAllowed(raw: unknown, field: string, code: ErrorCode = 'VALIDATION_ERROR'): Promise<string> {
    try {
      return await this.normalise(raw);
    } catch (err) {
      if (err instanceof TargetRefusedError) throw new ApiError(code, refusedTargetText(field));
      throw err;
    }
  }
}
