import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { COMPLIANCE_SETTINGS } from '../../messaging/validation/lookups';
import { ComplianceSettingsEntity } from './compliance-settings.entity';
import { ComplianceSettingsRepository } from './compliance-settings.repository';
import { ComplianceSettingsService } from './compliance-settings.service';
import { ComplianceController } from './compliance.controller';
import { SendingHours } from './sending-hours.service';

/**
 * Marketing compliance settings (issue 28 items 5 and 6). Global: messaging's validator reaches them
 * through the COMPLIANCE_SETTINGS port it declares; the sending-hours policy reads them too.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ComplianceSettingsEntity])],
  controllers: [ComplianceController],
  providers: [
    ComplianceSettingsRepository,
    ComplianceSettingsService,
    SendingHours,
    { provide: COMPLIANCE_SETTINGS, useExisting: ComplianceSettingsService },
  ],
  exports: [COMPLIANCE_SETTINGS, ComplianceSettingsService, SendingHours],
})
export class ComplianceModule {}
