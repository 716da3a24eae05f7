import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { CursorCodec } from './cursor';
import { DNS_RESOLVER, SystemDnsResolver } from './net/dns-resolver';
import { GuardedFetcher } from './net/guarded-fetcher';
import { TargetPolicy } from './net/target-policy';
import { SecretBox } from './secret-box';

@Global()
@Module({
  providers: [Clock, CursorCodec, SecretBox, { provide: DNS_RESOLVER, useClass: SystemDnsResolver }, TargetPolicy, GuardedFetcher],
  exports: [Clock, CursorCodec, SecretBox, TargetPolicy, GuardedFetcher],
})
export class CommonModule {}
