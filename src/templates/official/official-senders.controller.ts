import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { RequirePermissions } from '../../auth/decorators';
import type { OfficialSenderView } from '../template.types';
import { OfficialSendersService } from './official-senders.service';
import { ApiSuccess } from '../../common/openapi';
import { OFFICIAL_SENDER_EXAMPLE, OfficialSenderList } from '../dto/template.response';

@ApiTags('templates')
@Controller('api/v2/chatapp/official-senders')
export class OfficialSendersController {
  constructor(private readonly senders: OfficialSendersService) {}

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listOfficialSenders',
    summary: 'The platform number and the account official chat-app senders (use `id` as officialSenderId)',
  })
  @ApiSuccess(200, OfficialSenderList, {
    description: 'Senders, platform first',
    example: { success: true, data: { officialSenders: [OFFICIAL_SENDER_EXAMPLE] } },
  })
  async list(
    @CurrentAuth() auth: AuthContext,
  ): Promise<{ success: true; data: { officialSenders: OfficialSenderView[] } }> {
    return { success: true, data: { officialSenders: await this.senders.list(auth.accountId) } };
  }
}
