import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  UploadedFiles,
  UseInterceptors,
} from '@nestjs/common';
import { FileFieldsInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiMultipartForm, ApiSuccess } from '../common/openapi';
import { CreateTemplateDto } from './dto/create-template.dto';
import {
  ApiTemplateCreated,
  MEDIA_ASSET_EXAMPLE,
  MediaAsset,
  Template,
  TEMPLATE_EXAMPLE,
  TemplatePage,
} from './dto/template.response';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { Page } from '../common/cursor';
import { ListTemplatesQuery } from './dto/list-templates.query';
import { MediaAssetView, TemplateMediaService } from './media/template-media.service';
import { CreatedTemplate, TemplateCreationService } from './template-creation.service';
import { parseCreateRequest, singleUpload, UploadedParts } from './template-request.parser';
import { TemplatesService } from './templates.service';
import type { TemplateView } from './template.types';

const binary = { type: 'string' as const, format: 'binary' };
const HEADER_FILE = 'JPEG or PNG image (5 MB), MP4 video (16 MB) or PDF document (100 MB)';

const isMultipart = (contentType: string | undefined) => /^multipart\/form-data/i.test(contentType ?? '');

@ApiTags('templates')
@Controller('api/v2/templates')
export class TemplatesController {
  constructor(
    private readonly templates: TemplatesService,
    private readonly creation: TemplateCreationService,
    private readonly media: TemplateMediaService,
  ) {}

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listTemplates',
    summary: 'List own and default templates (newest first, cursor pagination, up to 500 per page)',
  })
  @ApiSuccess(200, TemplatePage, {
    description: 'One page of templates',
    example: { success: true, data: { templates: [TEMPLATE_EXAMPLE], nextCursor: null, hasMore: false } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListTemplatesQuery,
  ): Promise<{ success: true; data: { templates: TemplateView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page: Page<TemplateView> = await this.templates.list(auth.accountId, q);
    return { success: true, data: { templates: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Get(':id')
  @RequirePermissions('messages:read')
  @ApiOperation({ operationId: 'getTemplate', summary: 'Read one template (own or default)' })
  @ApiSuccess(200, Template, { description: 'The template', example: { success: true, data: TEMPLATE_EXAMPLE } })
  @ApiErrors('NOT_FOUND')
  async get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<{ success: true; data: TemplateView }> {
    return { success: true, data: await this.templates.get(auth.accountId, id) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiOperation({
    operationId: 'createTemplate',
    summary: 'Create a template (JSON, or multipart with headerMedia/file and a payload JSON string)',
    description:
      'Official chat-app templates are submitted to the provider and start `pending`; SMS templates answer the short form.',
  })
  @ApiBody({ type: CreateTemplateDto })
  @ApiMultipartForm({
    type: 'object',
    required: ['payload'],
    properties: {
      payload: { type: 'string', description: 'The JSON body (CreateTemplateDto) as a string' },
      headerMedia: { ...binary, description: `Header file: ${HEADER_FILE}` },
      file: { ...binary, description: 'Same as headerMedia (either name)' },
    },
  })
  @ApiTemplateCreated({
    success: true,
    data: { template: { ...TEMPLATE_EXAMPLE, status: 'pending', providerTemplateId: null } },
  })
  @ApiErrors(
    'VALIDATION_ERROR',
    'TEMPLATE_EXISTS',
    'PAYLOAD_TOO_LARGE',
    'MEDIA_QUOTA_EXCEEDED',
    'PROVIDER_RATE_LIMITED',
    'PROVIDER_ERROR',
    'PROVIDER_UNAVAILABLE',
  )
  @UseInterceptors(
    FileFieldsInterceptor([
      { name: 'headerMedia', maxCount: 1 },
      { name: 'file', maxCount: 1 },
    ]),
  )
  async create(
    @CurrentAuth() auth: AuthContext,
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @UploadedFiles() parts: UploadedParts,
  ): Promise<{ success: true } & CreatedTemplate> {
    const { dto, upload } = await parseCreateRequest(body, isMultipart(contentType), parts);
    return { success: true, ...(await this.creation.create(auth.accountId, dto, upload)) };
  }

  @Post('media')
  @HttpCode(201)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiConsumes('multipart/form-data')
  @ApiOperation({
    operationId: 'uploadTemplateMedia',
    summary: 'Upload header media (multipart `file`): JPEG/PNG up to 5 MB, MP4 up to 16 MB, PDF up to 100 MB',
  })
  @ApiMultipartForm({
    type: 'object',
    properties: {
      file: { ...binary, description: HEADER_FILE },
      headerMedia: { ...binary, description: 'Same as file (either name, exactly one)' },
    },
  })
  @ApiSuccess(201, MediaAsset, {
    description: 'Stored; use headerAssetId when creating a template',
    example: { success: true, data: MEDIA_ASSET_EXAMPLE },
  })
  @ApiErrors('VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'MEDIA_QUOTA_EXCEEDED')
  @UseInterceptors(
    FileFieldsInterceptor([
      { name: 'file', maxCount: 1 },
      { name: 'headerMedia', maxCount: 1 },
    ]),
  )
  async upload(
    @CurrentAuth() auth: AuthContext,
    @UploadedFiles() parts: UploadedParts,
  ): Promise<{ success: true; data: MediaAssetView }> {
    return { success: true, data: await this.media.upload(auth.accountId, await singleUpload(parts)) };
  }
}
