import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { CheckVerificationDto, SendVerificationDto } from './dto/send-verification.dto';
import { CheckedVerificationView, SentVerificationView } from './dto/verification.view';
import {
  CHECKED_VERIFICATION_EXAMPLE,
  SENT_VERIFICATION_EXAMPLE,
  SentVerification,
  VerificationCheckResult,
} from './dto/verification.response';
import { VerificationService } from './verification.service';

@ApiTags('verification')
@Controller('api/v2/verification')
export class VerificationController {
  constructor(private readonly verifications: VerificationService) {}

  @Post('send')
  @HttpCode(201)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'sendVerificationCode',
    summary: 'Send a one-time code',
    description:
      'Billed and delivered like a message (built-in text, or `template` with the code as variable 1). ' +
      '429 VERIFICATION_ATTEMPTS_EXCEEDED when the recipient was sent too many codes in the window; 429 FRAUD_SUSPECTED when the fraud guard blocks the destination prefix (nothing is paid; see GET /api/v2/verification/fraud-blocks). Needs `messages:create` and a verified account phone.',
  })
  @ApiSuccess(201, SentVerification, {
    description: 'The code was accepted by the provider.',
    example: SENT_VERIFICATION_EXAMPLE,
  })
  @ApiErrors(
    'VALIDATION_ERROR',
    'INVALID_CHANNEL',
    'INVALID_RECIPIENT',
    'DESTINATION_NOT_ALLOWED',
    'RECIPIENT_OPTED_OUT',
    'TEMPLATE_NOT_FOUND',
    'TEMPLATE_NOT_USABLE',
    'TEMPLATE_VARIABLES_MISMATCH',
    'INSUFFICIENT_BALANCE',
    'SUBSCRIPTION_INACTIVE',
    'CONFLICT',
    'VERIFICATION_ATTEMPTS_EXCEEDED',
    'FRAUD_SUSPECTED',
    'PROVIDER_RATE_LIMITED',
    'PROVIDER_ERROR',
    'PROVIDER_UNAVAILABLE',
  )
  async send(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: SendVerificationDto,
  ): Promise<{ success: true; data: SentVerificationView }> {
    return { success: true, data: await this.verifications.send(auth.accountId, dto) };
  }

  @Post('check')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @ApiOperation({
    operationId: 'checkVerificationCode',
    summary: 'Check a code the user typed',
    description:
      '`valid` is true once, for the check that approves; 429 VERIFICATION_ATTEMPTS_EXCEEDED after too many wrong checks (until the code expires).',
  })
  @ApiSuccess(200, VerificationCheckResult, { description: 'The verdict.', example: CHECKED_VERIFICATION_EXAMPLE })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'VERIFICATION_ATTEMPTS_EXCEEDED')
  async check(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: CheckVerificationDto,
  ): Promise<{ success: true; data: CheckedVerificationView }> {
    return { success: true, data: await this.verifications.check(auth.accountId, dto) };
  }
}
