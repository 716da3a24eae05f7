import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { CursorCodec } from './cursor';
import { DNS_RESOLVER, SystemDnsResolver } from './net/dns-resolver';
import { GuardedFetcher } from './net/guarded-fetcher';
import { TargetPolicy } from './net/target-policy';
import { SecretBox } from './secret-box';
import { ShutdownCoordinator } from './shutdown/shutdown-coordinator';

@Global()
@Module({
  providers: [
    Clock,
    CursorCodec,
    SecretBox,
    { provide: DNS_RESOLVER, useClass: SystemDnsResolver },
    TargetPolicy,
    GuardedFetcher,
    ShutdownCoordinator,
  ],
  exports: [Clock, CursorCodec, SecretBox, TargetPolicy, GuardedFetcher, ShutdownCoordinator],
})
export class CommonModule {}
