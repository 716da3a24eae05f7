import { Injectable } from '@nestjs/common';
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config/app-config';

/** Makes, hashes and compares one-time codes. The code is never stored, only its keyed hash. */
@Injectable()
export class VerificationCodes {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    // A key of its own, derived from the app secret, so these hashes share nothing with other uses of it.
    this.key = createHmac('sha256', config.security.appSecret).update('verification-code-hmac-v1').digest();
  }

  /** `length` decimal digits, uniformly random (leading zeros kept). */
  generate(length: number): string {
    return randomInt(0, 10 ** length)
      .toString()
      .padStart(length, '0');
  }

  /** Bound to the verification id: the same code in two verifications hashes differently. */
  hash(verificationId: string, code: string): string {
    return createHmac('sha256', this.key).update(`${verificationId}:${code}`).digest('hex');
  }

  /** Constant-time comparison of a submitted code against the stored hash. */
  matches(verificationId: string, code: string, storedHash: string): boolean {
    const expected = Buffer.from(storedHash, 'hex');
    const actual = Buffer.from(this.hash(verificationId, code), 'hex');
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }
}
