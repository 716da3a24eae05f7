import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { FileFieldsInterceptor } from '@nestjs/platform-express';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { Page } from '../common/cursor';
import { ListTemplatesQuery } from './dto/list-templates.query';
import { MediaAssetView, TemplateMediaService } from './media/template-media.service';
import { CreatedTemplate, TemplateCreationService } from './template-creation.service';
import { parseCreateRequest, singleUpload, UploadedParts } from './template-request.parser';
import { TemplatesService } from './templates.service';
import type { TemplateView } from './template.types';

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
  @ApiOperation({ summary: 'List own and default templates (newest first, cursor pagination, up to 500 per page)' })
  async list(@CurrentAuth() auth: AuthContext, @Query() q: ListTemplatesQuery): Promise<{ success: true; data: { templates: TemplateView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page: Page<TemplateView> = await this.templates.list(auth.accountId, q);
    return { success: true, data: { templates: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Get(':id')
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'Read one template (own or default)' })
  async get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<{ success: true; data: TemplateView }> {
    return { success: true, data: await this.templates.get(auth.accountId, id) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiOperation({ summary: 'Create a template (JSON, or multipart with headerMedia/file and a payload JSON string)' })
  @UseInterceptors(FileFieldsInterceptor([{ name: 'headerMedia', maxCount: 1 }, { name: 'file', maxCount: 1 }]))
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
  @ApiOperation({ summary: 'Upload header media (multipart `file`): JPEG/PNG up to 5 MB, MP4 up to 16 MB, PDF up to 100 MB' })
  @UseInterceptors(FileFieldsInterceptor([{ name: 'file', maxCount: 1 }, { name: 'headerMedia', maxCount: 1 }]))
  async upload(@CurrentAuth() auth: AuthContext, @UploadedFiles() parts: UploadedParts): Promise<{ success: true; data: MediaAssetView }> {
    return { success: true, data: await this.media.upload(auth.accountId, await singleUpload(parts)) };
  }
}
