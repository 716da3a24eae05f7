import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
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
  @ApiOperation({ summary: 'SMS senders of every account (filter by status), oldest first, up to 500' })
  async list(@Query() q: AdminListSendersQuery): Promise<Ok<{ smsSenders: AdminSmsSenderView[] }>> {
    return { success: true, data: { smsSenders: await this.review.list(q.status) } };
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve a pending sender; emits sms_sender.approved to its webhook' })
  async approve(@Param('id') id: string, @Body() dto: ReviewSmsSenderDto): Promise<Ok<{ smsSender: AdminSmsSenderView }>> {
    return { success: true, data: { smsSender: await this.review.review(id, 'approved', dto.reason ?? null) } };
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a pending sender; emits sms_sender.rejected to its webhook' })
  async reject(@Param('id') id: string, @Body() dto: ReviewSmsSenderDto): Promise<Ok<{ smsSender: AdminSmsSenderView }>> {
    return { success: true, data: { smsSender: await this.review.review(id, 'rejected', dto.reason ?? null) } };
  }
}
