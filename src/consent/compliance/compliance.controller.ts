import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { OwnerOnly } from '../../auth/decorators';
import { ApiErrors, ApiSuccess } from '../../common/openapi';
import { ComplianceSettingsService, ComplianceView } from './compliance-settings.service';
import { UpdateComplianceDto } from './dto/compliance.dto';
import { COMPLIANCE_EXAMPLE, ComplianceResult } from './dto/compliance.response';

type Ok = { success: true; data: { compliance: ComplianceView } };

/** The account's marketing compliance settings, as its owner reads and changes them. */
@ApiTags('account')
@Controller('api/v2/account/compliance')
export class ComplianceController {
  constructor(private readonly settings: ComplianceSettingsService) {}

  @Get()
  @OwnerOnly()
  @ApiOperation({
    operationId: 'getCompliance',
    summary: 'Marketing sending hours, opt-out footers and link hosts of this account',
    description:
      "Owner key only. Marketing outside the window (recipient's local time) is scheduled for its next opening; a marketing SMS without opt-out instructions gets the footer; links in marketing SMS must point at `allowedLinkDomains`.",
  })
  @ApiSuccess(200, ComplianceResult, { description: 'The compliance settings.', example: COMPLIANCE_EXAMPLE })
  async get(@CurrentAuth() auth: AuthContext): Promise<Ok> {
    return { success: true, data: { compliance: await this.settings.view(auth.accountId) } };
  }

  @Patch()
  @OwnerOnly()
  @ApiOperation({
    operationId: 'updateCompliance',
    summary: 'Change the marketing window, zones, footers or link hosts',
    description:
      'Owner key only. Fields not given stay as they are. A bad time, day, country, zone, footer or host is 400 VALIDATION_ERROR naming the field.',
  })
  @ApiSuccess(200, ComplianceResult, { description: 'The settings after the change.', example: COMPLIANCE_EXAMPLE })
  @ApiErrors('VALIDATION_ERROR')
  async update(@CurrentAuth() auth: AuthContext, @Body() dto: UpdateComplianceDto): Promise<Ok> {
    return { success: true, data: { compliance: await this.settings.update(auth.accountId, dto) } };
  }
}
