import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution behind the guarded fetcher; a seam so tests can prove it is asked only once. */
export interface DnsResolver {
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

export const DNS_RESOLVER = Symbol('DNS_RESOLVER');

const DNS_TIMEOUT_MS = 3000;

/** The operating system's resolver (getaddrinfo, as sockets use), with a deadline. */
@Injectable()
export class SystemDnsResolver implements DnsResolver {
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`DNS lookup of ${hostname} timed out`)), DNS_TIMEOUT_MS);
    });
    try {
      const found = await Promise.race([lookup(hostname, { all: true, verbatim: true }), deadline]);
      return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    } finally {
      clearTimeout(timer);
    }
  }
}
