import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { ADMIN_SENDER_EXAMPLE, AdminSmsSenderList, AdminSmsSenderReviewed } from './dto/sms-sender.response';
import { AdminOnly } from '../auth/decorators';
import { AdminListSendersQuery, ReviewSmsSenderDto } from './dto/review-sms-sender.dto';
import { AdminSmsSenderView, SenderReviewService } from './sender-review.service';

type Ok<T> = { success: true; data: T };

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/sms-senders')
export class AdminSendersController {
  constructor(private readonly review: SenderReviewService) {}

  @Get()
  @ApiOperation({
    operationId: 'adminListSmsSenders',
    summary: 'SMS senders of every account (filter by status), oldest first, up to 500',
  })
  @ApiSuccess(200, AdminSmsSenderList, {
    description: 'Senders',
    example: { success: true, data: { smsSenders: [ADMIN_SENDER_EXAMPLE] } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(@Query() q: AdminListSendersQuery): Promise<Ok<{ smsSenders: AdminSmsSenderView[] }>> {
    return { success: true, data: { smsSenders: await this.review.listForOperator(q.status) } };
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminApproveSmsSender',
    summary: 'Approve a pending sender; emits sms_sender.approved to its webhook',
  })
  @ApiSuccess(200, AdminSmsSenderReviewed, {
    description: 'Approved',
    example: { success: true, data: { smsSender: ADMIN_SENDER_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE')
  async approve(
    @Param('id') id: string,
    @Body() dto: ReviewSmsSenderDto,
  ): Promise<Ok<{ smsSender: AdminSmsSenderView }>> {
    return { success: true, data: { smsSender: await this.review.review(id, 'approved', dto.reason ?? null) } };
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminRejectSmsSender',
    summary: 'Reject a pending sender; emits sms_sender.rejected to its webhook',
  })
  @ApiSuccess(200, AdminSmsSenderReviewed, {
    description: 'Rejected',
    example: {
      success: true,
      data: {
        smsSender: {
          ...ADMIN_SENDER_EXAMPLE,
          status: 'rejected',
          isDefault: false,
          reason: 'Name not owned by the account',
        },
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE')
  async reject(
    @Param('id') id: string,
    @Body() dto: ReviewSmsSenderDto,
  ): Promise<Ok<{ smsSender: AdminSmsSenderView }>> {
    return { success: true, data: { smsSender: await this.review.review(id, 'rejected', dto.reason ?? null) } };
  }
}
