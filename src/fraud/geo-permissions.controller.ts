import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { UpdateGeoPermissionsDto } from './dto/geo-permissions.dto';
import { GEO_PERMISSIONS_EXAMPLE, GeoPermissionsResult } from './dto/geo-permissions.response';
import { GeoPermissionsService, GeoPermissionsView } from './geo-permissions.service';

type Ok = { success: true; data: { geoPermissions: GeoPermissionsView } };

/** The account's destination countries, as its owner reads and narrows them. */
@ApiTags('account')
@Controller('api/v2/account/geo-permissions')
export class GeoPermissionsController {
  constructor(private readonly geo: GeoPermissionsService) {}

  @Get()
  @OwnerOnly()
  @ApiOperation({
    operationId: 'getGeoPermissions',
    summary: 'The destination countries this account may send to, per channel with phone numbers',
    description:
      'Owner key only. A message, verification or bulk row to a phone in another country is refused with 400 DESTINATION_NOT_ALLOWED before anything is paid.',
  })
  @ApiSuccess(200, GeoPermissionsResult, { description: 'The geo permissions.', example: GEO_PERMISSIONS_EXAMPLE })
  async get(@CurrentAuth() auth: AuthContext): Promise<Ok> {
    return { success: true, data: { geoPermissions: await this.geo.view(auth.accountId) } };
  }

  @Patch()
  @OwnerOnly()
  @ApiOperation({
    operationId: 'updateGeoPermissions',
    summary: 'Choose the countries of one or more channels, within `ownerSelectable`',
    description:
      'Owner key only. Lists not given stay as they are. A country outside `ownerSelectable` (set by the operator) or an unknown code is 400 VALIDATION_ERROR naming it; 409 CONFLICT when the operator changed the permissions at the same moment.',
  })
  @ApiSuccess(200, GeoPermissionsResult, {
    description: 'The geo permissions after the change.',
    example: GEO_PERMISSIONS_EXAMPLE,
  })
  @ApiErrors('VALIDATION_ERROR', 'CONFLICT')
  async update(@CurrentAuth() auth: AuthContext, @Body() dto: UpdateGeoPermissionsDto): Promise<Ok> {
    return { success: true, data: { geoPermissions: await this.geo.setByOwner(auth.accountId, dto.channels) } };
  }
}
