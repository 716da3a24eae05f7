import { Body, Controller, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/decorators';
import { CreateWebSessionDto, UpdateWebSessionDto } from './dto/create-web-session.dto';
import { WebSessionsService } from './web-sessions.service';
import { WebSessionView } from './web-session.types';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/accounts/:id/web-sessions')
export class AdminWebSessionsController {
  constructor(private readonly sessions: WebSessionsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a web session or bot id (sandbox: with its chats, 120 generated when omitted)' })
  async create(@Param('id') id: string, @Body() dto: CreateWebSessionDto): Promise<{ success: true; data: { webSession: WebSessionView } }> {
    return { success: true, data: { webSession: await this.sessions.create(id, dto) } };
  }

  @Patch(':name')
  @ApiOperation({ summary: 'Set the status of a web session (sandbox control)' })
  async update(@Param('id') id: string, @Param('name') name: string, @Body() dto: UpdateWebSessionDto): Promise<{ success: true; data: { webSession: WebSessionView } }> {
    return { success: true, data: { webSession: await this.sessions.updateStatus(id, name, dto.status) } };
  }
}
