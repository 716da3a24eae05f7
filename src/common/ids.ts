import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** Random bytes drawn 4 KiB at a time (one call to the system's generator per ~290 ids, not one per id). */
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let used = 0;

/** `len` random characters of the id alphabet (5 bits each). */
export function randomPart(len: number): string {
  if (len > POOL_SIZE) return randomPart(POOL_SIZE) + randomPart(len - POOL_SIZE);
  if (used + len > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    used = 0;
  }
  let out = '';
  for (let i = 0; i < len; i++) out += ALPHABET[pool[used + i] & 31];
  used += len;
  return out;
}

/** The last newId's time and random part (14 values of 5 bits), for ids made in the same millisecond. */
let lastMs = -1;
const lastRandom = new Array<number>(14).fill(0);

/**
 * `<prefix>_<10 time chars><14 random chars>`: ids sort by creation time, so cursor pagination can
 * order by id alone, and they are strings on both dialects (no bigint auto-increment trap). Within one
 * process they are monotonic, as ULID's monotonic factory makes them: an id made in the same millisecond
 * as the last (or while the clock stands behind it) is the last plus one, so a list newest first shows
 * two records made in one millisecond in the order they were made.
 */
export function newId(prefix: string): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    const fresh = randomPart(14);
    for (let i = 0; i < 14; i++) lastRandom[i] = ALPHABET.indexOf(fresh[i]);
  } else {
    let i = 13;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i < 0)
      lastMs += 1; // 32^14 ids in one millisecond: move to the next one
    else lastRandom[i] += 1;
  }
  let random = '';
  for (const v of lastRandom) random += ALPHABET[v];
  return `${prefix}_${encodeTime(lastMs)}${random}`;
}

/**
 * `<prefix>_<10 time chars of at><14 chars of a hash of key>`: the same id again for the same key and
 * time (a bulk row's message, named again after a crash from what its job recorded), sorting like
 * newId by `at`. Keys must be unique among ids of one prefix and millisecond.
 */
export function derivedId(prefix: string, at: number, key: string): string {
  const h = createHash('sha256').update(key).digest();
  let out = '';
  for (let i = 0; i < 14; i++) out += ALPHABET[h[i] & 31];
  return `${prefix}_${encodeTime(at)}${out}`;
}

/** The smallest id of `prefix` made at `ms` or later: `id < idAt(prefix, t)` selects ids made before t. */
export function idAt(prefix: string, ms: number): string {
  return `${prefix}_${encodeTime(Math.max(0, Math.floor(ms)))}`;
}

/** When an id of newId/derivedId was made (epoch ms); null when it is not one. */
export function timeOfId(id: string): number | null {
  const at = id.indexOf('_');
  const chars = id.slice(at + 1, at + 11);
  if (at < 0 || chars.length < 10) return null;
  let ms = 0;
  for (const ch of chars) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return null;
    ms = ms * 32 + v;
  }
  return ms;
}
