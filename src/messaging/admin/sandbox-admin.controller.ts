import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../../auth/decorators';
import { Clock } from '../../common/clock';
import { SandboxDeliveryView, SandboxStore } from '../../providers/sandbox/sandbox-store';
import { SandboxProvider } from '../../providers/sandbox/sandbox.provider';
import { ApiErrors, ApiSuccess } from '../../common/openapi';
import {
  SandboxDeliveryList,
  SandboxFaultAdded,
  SandboxFaultDto,
  SandboxFaultsCleared,
  SandboxMessagesQuery,
} from './sandbox-admin.dto';
import { AccountId, accountIdOf } from '../../common/account-id';

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
  @ApiOperation({
    operationId: 'adminListSandboxMessages',
    summary:
      'Messages the sandbox delivered, oldest first (filters accountId, channel, to, bulkJobId; limit default 100)',
  })
  @ApiSuccess(200, SandboxDeliveryList, {
    description: 'Deliveries',
    example: {
      success: true,
      data: {
        messages: [
          {
            id: 'sbx_01JD0Q8Y4C7M2X',
            messageId: 'msg_01JD0Q8Y4C7M2X',
            accountId: 'acc_01JD0Q8Y4C7M2X',
            channel: 'local_sms',
            to: '+966501234567',
            sender: 'MyShop',
            text: 'Your order shipped',
            subject: null,
            bulkJobId: null,
            rowIndex: null,
            deliveredAt: '2026-11-22T10:00:00.000Z',
          },
        ],
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  async messages(
    @Query() q: SandboxMessagesQuery,
  ): Promise<{ success: true; data: { messages: SandboxDeliveryView[] } }> {
    return {
      success: true,
      data: {
        messages: await this.store.list({
          ...q,
          accountId: q.accountId === undefined ? undefined : accountIdOf(q.accountId),
          limit: q.limit ?? 100,
        }),
      },
    };
  }

  @Post('faults')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'adminAddSandboxFault',
    summary:
      'Make the next `count` sandbox calls (of a channel / account, or any) fail as rate_limit, unavailable, reject or timeout, or answer only after delayMs (delay)',
  })
  @ApiSuccess(201, SandboxFaultAdded, {
    description: 'Fault added',
    example: {
      success: true,
      data: {
        fault: {
          id: 'flt_01JD0Q8Y4C7M2X',
          channel: 'local_sms',
          kind: 'unavailable',
          count: 2,
          accountId: null,
          delayMs: null,
        },
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  async addFault(@Body() dto: SandboxFaultDto): Promise<{
    success: true;
    data: {
      fault: {
        id: string;
        channel: string | null;
        kind: string;
        count: number;
        accountId: AccountId | null;
        delayMs: number | null;
      };
    };
  }> {
    const fault = {
      channel: dto.channel ?? null,
      accountId: dto.accountId === undefined ? null : accountIdOf(dto.accountId),
      kind: dto.kind,
      count: dto.count,
      delayMs: dto.kind === 'delay' ? (dto.delayMs ?? null) : null,
    };
    const id = await this.store.addFault(fault, this.clock.now());
    return { success: true, data: { fault: { id, ...fault } } };
  }

  @Delete('faults')
  @ApiOperation({ operationId: 'adminClearSandboxFaults', summary: 'Clear every injected sandbox fault' })
  @ApiSuccess(200, SandboxFaultsCleared, {
    description: 'Faults cleared',
    example: { success: true, data: { cleared: 1 } },
  })
  async clearFaults(): Promise<{ success: true; data: { cleared: number } }> {
    return { success: true, data: { cleared: await this.store.clearFaults() } };
  }
}
