import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { AppConfig } from '../config/app-config';

/**
 * The one-way name of a recipient inside one account: HMAC-SHA256 under a key derived from
 * APP_SECRET and the account id, so the same number hashes differently in two accounts and cannot
 * be reversed without the secret. Suppression entries are looked up by it and an erasure keeps it,
 * so an opt-out survives the erasure of the number it names. Input: the normalised recipient
 * (E.164 or lower-case email), as the validator hands it on.
 */
@Injectable()
export class RecipientHasher {
  private readonly root: Buffer;

  constructor(config: AppConfig) {
    this.root = createHmac('sha256', `recipient-hash:${config.security.appSecret}`).digest();
  }

  /** 64 hex characters. */
  hash(accountId: string, recipient: string): string {
    const accountKey = createHmac('sha256', this.root).update(accountId).digest();
    return createHmac('sha256', accountKey).update(recipient).digest('hex');
  }
}
