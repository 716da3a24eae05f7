import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SEND_POLICY } from '../messaging/policy/send-policy';
import { ConsentPolicy } from './consent-policy';
import { DndAdminController } from './dnd/dnd-admin.controller';
import { DndImportService } from './dnd/dnd-import.service';
import { DndRepository } from './dnd.repository';
import { SuppressionsApiService } from './suppressions-api.service';
import { SuppressionsController } from './suppressions.controller';
import { SuppressionsCsvController } from './suppressions-csv.controller';
import { SuppressionsExport } from './suppressions-export.service';
import { SuppressionsImportService } from './suppressions-import.service';
import { SuppressionsEraser } from './suppressions-eraser.repository';
import { SuppressionsRepository } from './suppressions.repository';
import { SuppressionsService } from './suppressions.service';

/**
 * Consent (issue 28): the account's suppression list and the platform's do-not-disturb list,
 * enforced through the SEND_POLICY port that messaging declares. Global, so messaging, bulk and
 * verification reach the policy by its token, and the inbound keyword handlers reach
 * SuppressionsService (optOut / optIn) without importing this module's internals.
 */
@Global()
@Module({
  imports: [AccountsModule],
  controllers: [SuppressionsController, SuppressionsCsvController, DndAdminController],
  providers: [
    SuppressionsRepository,
    SuppressionsService,
    SuppressionsApiService,
    SuppressionsImportService,
    SuppressionsExport,
    SuppressionsEraser,
    DndRepository,
    DndImportService,
    ConsentPolicy,
    { provide: SEND_POLICY, useExisting: ConsentPolicy },
  ],
  exports: [SEND_POLICY, SuppressionsService],
})
export class ConsentModule {}
