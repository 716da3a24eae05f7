import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { ApiError } from './errors';

/**
 * Opaque, signed pagination cursors. A cursor is bound to a scope (e.g. `messages:<accountId>`),
 * so a tampered cursor, or one from another account or listing, is a 400 VALIDATION_ERROR.
 */
@Injectable()
export class CursorCodec {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = createHmac('sha256', config.security.appSecret).update('cursor').digest();
  }

  encode(scope: string, position: unknown): string {
    const body = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode<T>(scope: string, cursor: string | undefined | null): T | null {
    if (cursor === undefined || cursor === null || cursor === '') return null;
    const invalid = ApiError.validation('cursor is invalid');
    const [body, sig] = cursor.split('.');
    if (!body || !sig) throw invalid;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    let parsed: { s?: string; p?: T };
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw invalid;
    }
    if (parsed.s !== scope || parsed.p === undefined) throw invalid;
    return parsed.p;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url').slice(0, 22);
  }
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  hasMore: boolean;
}
