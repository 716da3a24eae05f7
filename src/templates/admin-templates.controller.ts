import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { CreateTemplateDto } from './dto/create-template.dto';
import {
  AdminTemplatePage,
  ApiTemplateCreated,
  OFFICIAL_SENDER_EXAMPLE,
  OfficialSenderCreated,
  TEMPLATE_EXAMPLE,
  TemplateResult,
} from './dto/template.response';
import { AccountsService } from '../accounts/accounts.service';
import { AdminOnly } from '../auth/decorators';
import { ApiError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import {
  AdminListTemplatesQuery,
  CreateOfficialSenderDto,
  SandboxOfficialTemplateDto,
  SandboxTemplateRegistered,
  SetTemplateStatusDto,
} from './dto/admin.dto';
import { OfficialTemplateClient } from './official/official-template-client';
import { SandboxTemplateClient } from './official/sandbox-template.client';
import { OfficialSendersService } from './official/official-senders.service';
import { CreatedTemplate, TemplateCreationService } from './template-creation.service';
import { parseCreateRequest } from './template-request.parser';
import { TemplatesService } from './templates.service';
import type { OfficialSenderView, TemplateView } from './template.types';
import { AccountId, accountIdOf } from '../common/account-id';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1')
export class AdminTemplatesController {
  constructor(
    private readonly templates: TemplatesService,
    private readonly creation: TemplateCreationService,
    private readonly senders: OfficialSendersService,
    private readonly accounts: AccountsService,
    private readonly official: OfficialTemplateClient,
    private readonly config: AppConfig,
  ) {}

  @Get('templates')
  @ApiOperation({
    operationId: 'adminListTemplates',
    summary: 'Templates of every account (and the defaults), newest first, by status: the review queue',
  })
  @ApiSuccess(200, AdminTemplatePage, {
    description: 'One page of templates',
    example: {
      success: true,
      data: { templates: [{ ...TEMPLATE_EXAMPLE, accountId: 'acc_01JD0Q8Y4C7M2X' }], nextCursor: null, hasMore: false },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(@Query() q: AdminListTemplatesQuery): Promise<{
    success: true;
    data: {
      templates: (TemplateView & { accountId: AccountId | null })[];
      nextCursor: string | null;
      hasMore: boolean;
    };
  }> {
    const page = await this.templates.listForOperator(q);
    return { success: true, data: { templates: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Post('templates/:id/status')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminSetTemplateStatus',
    summary: 'Move a template to pending, approved, rejected or active',
  })
  @ApiSuccess(200, TemplateResult, {
    description: 'Updated',
    example: { success: true, data: { template: TEMPLATE_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async setStatus(
    @Param('id') id: string,
    @Body() dto: SetTemplateStatusDto,
  ): Promise<{ success: true; data: { template: TemplateView } }> {
    return {
      success: true,
      data: { template: await this.templates.setStatusForOperator(id, dto.status, dto.reason ?? null) },
    };
  }

  @Post('templates/defaults')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'adminCreateDefaultTemplate',
    summary: 'Create a default template visible to every account (same body as POST /api/v2/templates, JSON)',
  })
  @ApiBody({ type: CreateTemplateDto })
  @ApiTemplateCreated({ success: true, data: { template: { ...TEMPLATE_EXAMPLE, isDefault: true } } })
  @ApiErrors(
    'VALIDATION_ERROR',
    'TEMPLATE_EXISTS',
    'PAYLOAD_TOO_LARGE',
    'PROVIDER_RATE_LIMITED',
    'PROVIDER_ERROR',
    'PROVIDER_UNAVAILABLE',
  )
  async createDefault(@Body() body: unknown): Promise<{ success: true } & CreatedTemplate> {
    const { dto } = await parseCreateRequest(body, false, undefined);
    return { success: true, ...(await this.creation.create(null, dto, null)) };
  }

  @Post('accounts/:id/official-senders')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'adminCreateOfficialSender',
    summary: 'Register an official chat-app sender (business number) for an account',
  })
  @ApiSuccess(201, OfficialSenderCreated, {
    description: 'Registered',
    example: {
      success: true,
      data: {
        officialSender: {
          ...OFFICIAL_SENDER_EXAMPLE,
          id: 'ofs_01JD0Q8Y4C7M2X',
          scope: 'account',
          isPlatform: false,
          displayName: 'Acme Support',
        },
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async createSender(
    @Param('id') id: string,
    @Body() dto: CreateOfficialSenderDto,
  ): Promise<{ success: true; data: { officialSender: OfficialSenderView } }> {
    if (!(await this.accounts.exists(accountIdOf(id)))) throw ApiError.notFound('Account');
    return { success: true, data: { officialSender: await this.senders.create(accountIdOf(id), dto) } };
  }

  @Post('sandbox/official-templates')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'adminRegisterSandboxOfficialTemplate',
    summary: 'Sandbox official provider: register a template as if created in the provider console (for manual links)',
  })
  @ApiSuccess(201, SandboxTemplateRegistered, {
    description: 'Registered',
    example: { success: true, data: { providerTemplateId: 'sbxtpl_01JD0Q8Y4C7M2X' } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async registerSandboxTemplate(
    @Body() dto: SandboxOfficialTemplateDto,
  ): Promise<{ success: true; data: { providerTemplateId: string } }> {
    if (!(this.official instanceof SandboxTemplateClient)) throw ApiError.notFound('Sandbox official provider');
    const providerTemplateId = await this.official.register({
      wabaId: dto.wabaId ?? this.config.chatapp.wabaId,
      name: dto.name,
      language: dto.language,
      status: dto.status ?? 'approved',
      variableCount: dto.variableCount ?? 0,
    });
    return { success: true, data: { providerTemplateId } };
  }
}
