import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import {
  SENDER_DETAIL_EXAMPLE,
  SENDER_EXAMPLE,
  SmsSenderCreatedResponse,
  SmsSenderEntry,
  SmsSenderList,
} from './dto/sms-sender.response';
import { DefaultSenderService } from './default-sender.service';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, RequirePermissions } from '../auth/decorators';
import { CreateSmsSenderDto } from './dto/create-sms-sender.dto';
import { SendersService, SmsSenderDetailView, SmsSenderView } from './senders.service';

@ApiTags('sms-senders')
@Controller('api/v2/sms-senders')
export class SendersController {
  constructor(
    private readonly senders: SendersService,
    private readonly defaults: DefaultSenderService,
  ) {}

  @Post()
  @HttpCode(201)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'createSmsSender',
    summary: 'Request an SMS sender name (owner key only); starts pending until reviewed',
  })
  @ApiSuccess(201, SmsSenderCreatedResponse, {
    bare: true,
    description: 'Submitted for review (status pending)',
    example: { success: true, message: 'SMS sender request submitted for review', data: { smsSender: SENDER_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async create(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: CreateSmsSenderDto,
  ): Promise<{ success: true; message: string; data: { smsSender: SmsSenderView } }> {
    const smsSender = await this.senders.create(auth.accountId, dto);
    return { success: true, message: 'SMS sender request submitted for review', data: { smsSender } };
  }

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({ operationId: 'listSmsSenders', summary: "The account's SMS senders with their review status" })
  @ApiSuccess(200, SmsSenderList, {
    description: 'Oldest first, up to 500',
    example: { success: true, data: { smsSenders: [SENDER_DETAIL_EXAMPLE] } },
  })
  async list(
    @CurrentAuth() auth: AuthContext,
  ): Promise<{ success: true; data: { smsSenders: SmsSenderDetailView[] } }> {
    return { success: true, data: { smsSenders: await this.senders.list(auth.accountId) } };
  }

  @Post(':id/default')
  @HttpCode(200)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'setDefaultSmsSender',
    summary: "Make an approved sender the account's default (owner key only)",
    description:
      'The default is the sender of every local_sms message that names none (without one, the platform default sender). Exactly one default per account, also under concurrent calls; ' +
      "the previous default stays approved. A sender that is not approved: 409 INVALID_STATE. Another account's sender: 404.",
  })
  @ApiParam({
    name: 'id',
    description: 'SMS sender id.',
    schema: { type: 'string', maxLength: 40 },
    example: 'snd_01JD0Q8Y4C7M2X',
  })
  @ApiSuccess(200, SmsSenderEntry, {
    description: 'The sender as the list shows it, now `isDefault: true`.',
    example: {
      success: true,
      data: {
        smsSender: {
          ...SENDER_DETAIL_EXAMPLE,
          status: 'approved',
          isDefault: true,
          reviewedAt: '2026-11-22T11:00:00.000Z',
        },
      },
    },
  })
  @ApiErrors('NOT_FOUND', 'INVALID_STATE')
  async makeDefault(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<{ success: true; data: { smsSender: SmsSenderDetailView } }> {
    return { success: true, data: { smsSender: await this.defaults.makeDefault(auth.accountId, id) } };
  }
}
