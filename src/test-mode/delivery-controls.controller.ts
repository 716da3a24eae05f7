import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { AccountView } from '../accounts/accounts.service';
import { ACCOUNT_EXAMPLE, AccountResource } from '../accounts/dto/account.response';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, TestModeOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { MessageDetail } from '../messaging/dto/message.response';
import { MESSAGE_DETAIL_EXAMPLE } from '../messaging/dto/messages.examples';
import type { MessageDetailView } from '../messaging/messages.service';
import { AddTestFaultRequest, SetTestMessageStatusRequest } from './dto/controls.request';
import { TestFaultAdded, TestFaultsCleared } from './dto/controls.response';
import { DeliveryControlsService, TestFaultView } from './delivery-controls.service';

type Ok<T> = { success: true; data: T };

const SIMULATED_EXAMPLE = {
  success: true,
  data: {
    ...MESSAGE_DETAIL_EXAMPLE.data,
    livemode: false,
    statusHistory: MESSAGE_DETAIL_EXAMPLE.data.statusHistory.map((h) =>
      h.source === 'provider' ? { ...h, providerStatus: 'simulated' } : h,
    ),
  },
};

@ApiTags('test-mode')
@TestModeOnly()
@OwnerOnly()
@Controller('api/v2/test')
export class DeliveryControlsController {
  constructor(private readonly controls: DeliveryControlsService) {}

  @Post('messages/:id/status')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testSetMessageStatus',
    summary: 'Test mode: apply a delivery receipt (delivered, read or failed) to a sent test message',
    description:
      'Test owner key only (a live key or a test member key: 403 FORBIDDEN). The receipt goes through the same writer as provider receipts: forward only, with its status history and `message.delivered` / `message.read` / `message.failed` events. ' +
      'A message not sent yet (`queued`, `scheduled`), and a receipt that would not move the message (a repeat, a stale move such as `delivered` after `read`, a final message): 409 INVALID_STATE. ' +
      "A live message or another account's: 404 NOT_FOUND. `errorCode` / `errorMessage` only with `failed` (400 VALIDATION_ERROR otherwise).",
  })
  @ApiParam({ name: 'id', description: 'A message of the test mode.', schema: { type: 'string', maxLength: 80 } })
  @ApiSuccess(200, MessageDetail, {
    description: 'The message as GET /api/v2/messages/{id} shows it after the receipt.',
    example: SIMULATED_EXAMPLE,
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE')
  async setStatus(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: SetTestMessageStatusRequest,
  ): Promise<Ok<MessageDetailView>> {
    return { success: true, data: await this.controls.setMessageStatus(auth.accountId, id, dto) };
  }

  @Post('faults')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'testAddFault',
    summary: 'Test mode: make the next sends of the test mode fail as a provider fault',
    description:
      'Test owner key only. The next `count` sends of the test mode (of `channel`, or of any channel) fail as the kind says; live sends are never affected. ' +
      'The documented sandbox recipients keep working besides (numbers ending 0000 rejected, 0009 undeliverable, emails starting with `fail` rejected).',
  })
  @ApiSuccess(201, TestFaultAdded, {
    description: 'Added.',
    example: {
      success: true,
      data: { fault: { id: 'flt_01JD0Q8Y4C7M2X', kind: 'provider_unavailable', channel: 'local_sms', count: 2 } },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  async addFault(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: AddTestFaultRequest,
  ): Promise<Ok<{ fault: TestFaultView }>> {
    return { success: true, data: { fault: await this.controls.addFault(auth.accountId, dto) } };
  }

  @Delete('faults')
  @ApiOperation({
    operationId: 'testClearFaults',
    summary: "Test mode: clear the test mode's faults",
    description: 'Test owner key only. Only the faults of this test mode are cleared.',
  })
  @ApiSuccess(200, TestFaultsCleared, { description: 'Cleared.', example: { success: true, data: { cleared: 1 } } })
  async clearFaults(@CurrentAuth() auth: AuthContext): Promise<Ok<{ cleared: number }>> {
    return { success: true, data: { cleared: await this.controls.clearFaults(auth.accountId) } };
  }

  @Post('balance/reset')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testResetBalance',
    summary: 'Test mode: set the test balance back to TEST_MODE_BALANCE',
    description: 'Test owner key only. Live money is never touched.',
  })
  @ApiSuccess(200, AccountResource, {
    description: 'The account as GET /api/v2/account shows it to a test key.',
    example: { success: true, data: { ...ACCOUNT_EXAMPLE.data, walletBalance: 100_000, livemode: false } },
  })
  async resetBalance(@CurrentAuth() auth: AuthContext): Promise<Ok<AccountView>> {
    return { success: true, data: await this.controls.resetBalance(auth.accountId) };
  }
}
