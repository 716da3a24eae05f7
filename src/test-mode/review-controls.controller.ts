import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, TestModeOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { SENDER_DETAIL_EXAMPLE, SmsSenderEntry } from '../senders/dto/sms-sender.response';
import { SenderReviewService } from '../senders/sender-review.service';
import type { SmsSenderDetailView } from '../senders/senders.service';
import { TEMPLATE_EXAMPLE, TemplateResult } from '../templates/dto/template.response';
import type { TemplateView } from '../templates/template.types';
import { TemplatesService } from '../templates/templates.service';
import { TestRejectionRequest } from './dto/controls.request';

type Ok<T> = { success: true; data: T };

const TEST_TEMPLATE = {
  ...TEMPLATE_EXAMPLE,
  livemode: false,
  officialSender: { ...TEMPLATE_EXAMPLE.officialSender, livemode: false },
};

const IdParam = (what: string) =>
  ApiParam({ name: 'id', description: `An ${what} of the test mode.`, schema: { type: 'string', maxLength: 40 } });
// Test-mode data: livemode false throughout.
const APPROVED_SENDER = {
  ...SENDER_DETAIL_EXAMPLE,
  livemode: false,
  status: 'approved',
  isDefault: true,
  reviewedAt: '2026-11-22T11:00:00.000Z',
};
const REJECTED_SENDER = {
  ...SENDER_DETAIL_EXAMPLE,
  livemode: false,
  status: 'rejected',
  reason: 'Name not owned by the account',
  reviewedAt: '2026-11-22T11:00:00.000Z',
};

/**
 * Test mode: the owner plays the reviewers, the operator's for SMS senders and the provider's for
 * templates, through the same review services (status, events, the first approved sender becoming the
 * default), on the test mode's own senders and templates only.
 */
@ApiTags('test-mode')
@TestModeOnly()
@OwnerOnly()
@Controller('api/v2/test')
export class ReviewControlsController {
  constructor(
    private readonly senders: SenderReviewService,
    private readonly templates: TemplatesService,
  ) {}

  @Post('sms-senders/:id/approve')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testApproveSmsSender',
    summary: 'Test mode: approve a pending SMS sender of the test mode',
    description:
      "Test owner key only. Emits `sms_sender.approved` (and to the sender's webhook). Not pending: 409 INVALID_STATE; a live or another account's sender: 404 NOT_FOUND.",
  })
  @IdParam('SMS sender')
  @ApiSuccess(200, SmsSenderEntry, {
    description: 'Approved.',
    example: { success: true, data: { smsSender: APPROVED_SENDER } },
  })
  @ApiErrors('NOT_FOUND', 'INVALID_STATE')
  async approveSender(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<Ok<{ smsSender: SmsSenderDetailView }>> {
    return { success: true, data: { smsSender: await this.senders.reviewOwn(auth.accountId, id, 'approved', null) } };
  }

  @Post('sms-senders/:id/reject')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testRejectSmsSender',
    summary: 'Test mode: reject a pending SMS sender of the test mode',
    description:
      "Test owner key only. Emits `sms_sender.rejected` with the reason. Not pending: 409 INVALID_STATE; a live or another account's sender: 404 NOT_FOUND.",
  })
  @IdParam('SMS sender')
  @ApiSuccess(200, SmsSenderEntry, {
    description: 'Rejected.',
    example: { success: true, data: { smsSender: REJECTED_SENDER } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE')
  async rejectSender(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: TestRejectionRequest,
  ): Promise<Ok<{ smsSender: SmsSenderDetailView }>> {
    const smsSender = await this.senders.reviewOwn(auth.accountId, id, 'rejected', dto.reason ?? null);
    return { success: true, data: { smsSender } };
  }

  @Post('templates/:id/approve')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testApproveTemplate',
    summary: 'Test mode: approve a template of the test mode, as the provider would',
    description:
      "Test owner key only. Emits `template.approved` when the status changes. A default template, a live or another account's: 404 NOT_FOUND.",
  })
  @IdParam('template')
  @ApiSuccess(200, TemplateResult, {
    description: 'Approved.',
    example: { success: true, data: { template: { ...TEST_TEMPLATE, status: 'approved' } } },
  })
  @ApiErrors('NOT_FOUND')
  async approveTemplate(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<Ok<{ template: TemplateView }>> {
    return {
      success: true,
      data: { template: await this.templates.setStatusOfAccount(auth.accountId, id, 'approved', null) },
    };
  }

  @Post('templates/:id/reject')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testRejectTemplate',
    summary: 'Test mode: reject a template of the test mode, as the provider would',
    description:
      "Test owner key only. `reason` becomes `rejectionReason`; emits `template.rejected` when the status changes. A default template, a live or another account's: 404 NOT_FOUND.",
  })
  @IdParam('template')
  @ApiSuccess(200, TemplateResult, {
    description: 'Rejected.',
    example: {
      success: true,
      data: {
        template: {
          ...TEST_TEMPLATE,
          status: 'rejected',
          rejectionReason: 'Promotional content in a utility template',
        },
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async rejectTemplate(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: TestRejectionRequest,
  ): Promise<Ok<{ template: TemplateView }>> {
    const template = await this.templates.setStatusOfAccount(auth.accountId, id, 'rejected', dto.reason ?? null);
    return { success: true, data: { template } };
  }
}
