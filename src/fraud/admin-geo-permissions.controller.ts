import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { SetGeoPermissionsDto } from './dto/geo-permissions.dto';
import { GEO_PERMISSIONS_EXAMPLE, GeoPermissionsResult } from './dto/geo-permissions.response';
import { GeoPermissionsService, GeoPermissionsView } from './geo-permissions.service';
import { accountIdOf } from '../common/account-id';

type Ok = { success: true; data: { geoPermissions: GeoPermissionsView } };

/** The operator's side of geo permissions: the ceiling an owner chooses within, and the lists. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/accounts/:id/geo-permissions')
export class AdminGeoPermissionsController {
  constructor(private readonly geo: GeoPermissionsService) {}

  @Get()
  @ApiOperation({ operationId: 'adminGetGeoPermissions', summary: "An account's geo permissions" })
  @ApiSuccess(200, GeoPermissionsResult, { description: 'The geo permissions.', example: GEO_PERMISSIONS_EXAMPLE })
  @ApiErrors('NOT_FOUND')
  async get(@Param('id') id: string): Promise<Ok> {
    return { success: true, data: { geoPermissions: await this.geo.viewForOperator(accountIdOf(id)) } };
  }

  @Put()
  @ApiOperation({
    operationId: 'adminSetGeoPermissions',
    summary: 'Set the countries the owner may choose from, and the lists per channel',
    description:
      "Lists given must be within `ownerSelectable` (400 otherwise). A list not given keeps the account's own list cut to the new ceiling (lowering the ceiling narrows it); an account without its own permissions gets the ceiling.",
  })
  @ApiSuccess(200, GeoPermissionsResult, {
    description: 'The geo permissions after the change.',
    example: GEO_PERMISSIONS_EXAMPLE,
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async put(@Param('id') id: string, @Body() dto: SetGeoPermissionsDto): Promise<Ok> {
    return {
      success: true,
      data: { geoPermissions: await this.geo.setByOperator(accountIdOf(id), dto.ownerSelectable, dto.channels) },
    };
  }
}
