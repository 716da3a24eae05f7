import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { SENDER_DETAIL_EXAMPLE, SENDER_EXAMPLE, SmsSenderCreatedResponse, SmsSenderList } from './dto/sms-sender.response';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, RequirePermissions } from '../auth/decorators';
import { CreateSmsSenderDto } from './dto/create-sms-sender.dto';
import { SendersService, SmsSenderDetailView, SmsSenderView } from './senders.service';

@ApiTags('sms-senders')
@Controller('api/v2/sms-senders')
export class SendersController {
  constructor(private readonly senders: SendersService) {}

  @Post()
  @HttpCode(201)
  @OwnerOnly()
  @ApiOperation({ operationId: 'createSmsSender', summary: 'Request an SMS sender name (owner key only); starts pending until reviewed' })
  @ApiSuccess(201, SmsSenderCreatedResponse, {
    bare: true,
    description: 'Submitted for review (status pending)',
    example: { success: true, message: 'SMS sender request submitted for review', data: { smsSender: SENDER_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async create(@CurrentAuth() auth: AuthContext, @Body() dto: CreateSmsSenderDto): Promise<{ success: true; message: string; data: { smsSender: SmsSenderView } }> {
    const smsSender = await this.senders.create(auth.accountId, dto);
    return { success: true, message: 'SMS sender request submitted for review', data: { smsSender } };
  }

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({ operationId: 'listSmsSenders', summary: "The account's SMS senders with their review status" })
  @ApiSuccess(200, SmsSenderList, { description: 'Oldest first, up to 500', example: { success: true, data: { smsSenders: [SENDER_DETAIL_EXAMPLE] } } })
  async list(@CurrentAuth() auth: AuthContext): Promise<{ success: true; data: { smsSenders: SmsSenderDetailView[] } }> {
    return { success: true, data: { smsSenders: await this.senders.list(auth.accountId) } };
  }
}
