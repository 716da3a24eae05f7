import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { CursorCodec } from './cursor';
import { DNS_RESOLVER, SystemDnsResolver } from './net/dns-resolver';
import { GuardedFetcher } from './net/guarded-fetcher';
import { TargetPolicy } from './net/target-policy';
import { RecipientErasers } from './erasure/recipient-erasers';
import { RetentionPurges } from './retention/retention-purges';
import { RecipientHasher } from './recipient-hasher';
import { SecretBox } from './secret-box';
import { ShutdownCoordinator } from './shutdown/shutdown-coordinator';

@Global()
@Module({
  providers: [
    Clock,
    CursorCodec,
    SecretBox,
    RecipientHasher,
    RecipientErasers,
    RetentionPurges,
    { provide: DNS_RESOLVER, useClass: SystemDnsResolver },
    TargetPolicy,
    GuardedFetcher,
    ShutdownCoordinator,
  ],
  exports: [
    Clock,
    CursorCodec,
    SecretBox,
    RecipientHasher,
    RecipientErasers,
    RetentionPurges,
    TargetPolicy,
    GuardedFetcher,
    ShutdownCoordinator,
  ],
})
export class CommonModule {}
