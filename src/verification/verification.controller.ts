import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { CheckVerificationDto, SendVerificationDto } from './dto/send-verification.dto';
import { CheckedVerificationView, SentVerificationView } from './dto/verification.view';
import { VerificationService } from './verification.service';

@ApiTags('verification')
@Controller('api/v2/verification')
export class VerificationController {
  constructor(private readonly verifications: VerificationService) {}

  @Post('send')
  @HttpCode(201)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({ summary: 'Send a one-time code (billed and delivered like a message); 429 VERIFICATION_ATTEMPTS_EXCEEDED when the recipient got too many' })
  async send(@CurrentAuth() auth: AuthContext, @Body() dto: SendVerificationDto): Promise<{ success: true; data: SentVerificationView }> {
    return { success: true, data: await this.verifications.send(auth.accountId, dto) };
  }

  @Post('check')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @ApiOperation({ summary: 'Check a code: `valid` is true once; 429 VERIFICATION_ATTEMPTS_EXCEEDED after too many checks' })
  async check(@CurrentAuth() auth: AuthContext, @Body() dto: CheckVerificationDto): Promise<{ success: true; data: CheckedVerificationView }> {
    return { success: true, data: await this.verifications.check(auth.accountId, dto) };
  }
}
