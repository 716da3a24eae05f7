import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AUDIT_TRAIL } from '../common/audit/audit-trail';
import { AuditEventsController } from './audit/audit-events.controller';
import { AuditEventsRepository } from './audit/audit-events.repository';
import { AuditEventsService } from './audit/audit-events.service';
import { AuditPurger } from './audit/audit-purger';
import { AuditTrailService } from './audit/audit-trail.service';
import { ErasureRunner } from './erasure/erasure-runner';
import { ErasuresController } from './erasure/erasures.controller';
import { ErasuresRepository } from './erasure/erasures.repository';
import { ErasuresService } from './erasure/erasures.service';
import { PurgeLeaseRepository } from './retention/purge-lease.repository';
import { RetentionPurger } from './retention/retention-purger';
import { UsageRollup } from './usage/usage-rollup';
import { UsageController } from './usage/usage.controller';
import { UsageRepository } from './usage/usage.repository';
import { UsageService } from './usage/usage.service';

/**
 * Privacy and the data lifecycle (issue 29): the retention purger (retention/) and the daily usage
 * records that outlive the messages (usage/); erasure of one recipient (the erasers of each table are
 * their owners', through common's RecipientErasers) and the audit trail, whose AUDIT_TRAIL port every
 * module records into. Global only to hand out that port.
 */
@Global()
@Module({
  imports: [AccountsModule],
  controllers: [ErasuresController, AuditEventsController, UsageController],
  providers: [
    AuditEventsRepository,
    AuditTrailService,
    { provide: AUDIT_TRAIL, useExisting: AuditTrailService },
    AuditEventsService,
    AuditPurger,
    ErasuresRepository,
    ErasuresService,
    ErasureRunner,
    PurgeLeaseRepository,
    RetentionPurger,
    UsageRepository,
    UsageService,
    UsageRollup,
  ],
  exports: [AUDIT_TRAIL],
})
export class PrivacyModule {}
