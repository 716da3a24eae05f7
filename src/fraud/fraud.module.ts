import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { GEO_PERMISSIONS } from '../messaging/validation/lookups';
import { AdminGeoPermissionsController } from './admin-geo-permissions.controller';
import { GeoPermissionsEntity } from './entities/geo-permissions.entity';
import { GeoPermissionsController } from './geo-permissions.controller';
import { GeoPermissionsRepository } from './geo-permissions.repository';
import { GeoPermissionsService } from './geo-permissions.service';

/**
 * The fraud guard (issue 31): geo permissions (the destination countries an account may send to)
 * and verification pumping detection. Messaging and verification reach it only through the ports
 * they declare, so this module is global and exports those tokens (GEO_PERMISSIONS).
 */
@Global()
@Module({
  imports: [AccountsModule, TypeOrmModule.forFeature([GeoPermissionsEntity])],
  controllers: [GeoPermissionsController, AdminGeoPermissionsController],
  providers: [
    GeoPermissionsRepository,
    GeoPermissionsService,
    { provide: GEO_PERMISSIONS, useExisting: GeoPermissionsService },
  ],
  exports: [GEO_PERMISSIONS],
})
export class FraudModule {}
