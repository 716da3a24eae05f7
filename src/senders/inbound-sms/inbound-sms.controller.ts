import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { RequirePermissions } from '../../auth/decorators';
import { ApiErrors, ApiSuccess } from '../../common/openapi';
import { INBOUND_SMS_EXAMPLE, InboundSmsItem, InboundSmsPage } from './dto/inbound-sms.response';
import { ListInboundSmsQuery } from './dto/list-inbound-sms.query';
import { InboundSmsQueryService } from './inbound-sms-query.service';

@ApiTags('sms-senders')
@Controller('api/v2/sms/inbound')
export class InboundSmsController {
  constructor(private readonly inbound: InboundSmsQueryService) {}

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listInboundSms',
    summary: 'SMS sent to the account’s sender names (newest first, cursor pagination, up to 100 per page)',
    description:
      'Concatenated SMS appear once, joined, with their parts. An SMSC’s redelivery of an SMS already stored is not listed twice.',
  })
  @ApiSuccess(200, InboundSmsPage, {
    description: 'One page of inbound SMS',
    example: { success: true, data: { inboundSms: [INBOUND_SMS_EXAMPLE], nextCursor: null, hasMore: false } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListInboundSmsQuery,
  ): Promise<{ success: true; data: { inboundSms: InboundSmsItem[]; nextCursor: string | null; hasMore: boolean } }> {
    const page = await this.inbound.list(auth.accountId, q);
    return { success: true, data: { inboundSms: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }
}
