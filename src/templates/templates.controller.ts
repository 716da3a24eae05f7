import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { TemplatesService } from './templates.service';
import type { TemplateView } from './template.types';

@ApiTags('templates')
@Controller('api/v2/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get(':id')
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'Read one template (own or default)' })
  async get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<{ success: true; data: TemplateView }> {
    return { success: true, data: await this.templates.get(auth.accountId, id) };
  }
}
