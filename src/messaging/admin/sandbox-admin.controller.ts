import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../../auth/decorators';
import { Clock } from '../../common/clock';
import { SandboxDeliveryView, SandboxStore } from '../../providers/sandbox/sandbox-store';
import { SandboxProvider } from '../../providers/sandbox/sandbox.provider';
import { SandboxFaultDto, SandboxMessagesQuery } from './sandbox-admin.dto';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/sandbox')
export class SandboxAdminController {
  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly clock: Clock,
  ) {}

  /** The sandbox instance that sends (so a fault added here is seen at once by this replica). */
  private get store(): SandboxStore {
    return this.moduleRef.get(SandboxProvider, { strict: false }).store;
  }

  @Get('messages')
  @ApiOperation({ summary: 'Messages the sandbox delivered, oldest first (filters accountId, channel, to, bulkJobId; limit default 100)' })
  async messages(@Query() q: SandboxMessagesQuery): Promise<{ success: true; data: { messages: SandboxDeliveryView[] } }> {
    return { success: true, data: { messages: await this.store.list({ ...q, limit: q.limit ?? 100 }) } };
  }

  @Post('faults')
  @HttpCode(201)
  @ApiOperation({ summary: 'Make the next `count` sandbox calls (of a channel / account, or any) fail as rate_limit, unavailable, reject or timeout' })
  async addFault(@Body() dto: SandboxFaultDto): Promise<{ success: true; data: { fault: { id: string; channel: string | null; kind: string; count: number; accountId: string | null } } }> {
    const fault = { channel: dto.channel ?? null, accountId: dto.accountId ?? null, kind: dto.kind, count: dto.count };
    const id = await this.store.addFault(fault, this.clock.now());
    return { success: true, data: { fault: { id, ...fault } } };
  }

  @Delete('faults')
  @ApiOperation({ summary: 'Clear every injected sandbox fault' })
  async clearFaults(): Promise<{ success: true; data: { cleared: number } }> {
    return { success: true, data: { cleared: await this.store.clearFaults() } };
  }
}
