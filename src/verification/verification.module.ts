import { Module } from '@nestjs/common';
import { VerificationsEraser } from './verifications-eraser.repository';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MessagingModule } from '../messaging/messaging.module';
import { VerificationSendWindowEntity } from './entities/verification-send-window.entity';
import { VerificationEntity } from './entities/verification.entity';
import { VerificationCodes } from './verification-codes';
import { VerificationPurger } from './verification-purger';
import { VerificationSendLimiter } from './verification-send-limiter';
import { VerificationController } from './verification.controller';
import { VerificationRepository } from './verification.repository';
import { VerificationService } from './verification.service';

// One-time codes, delivered and billed through the messaging module's validator and send pipeline.
@Module({
  imports: [TypeOrmModule.forFeature([VerificationEntity, VerificationSendWindowEntity]), MessagingModule],
  controllers: [VerificationController],
  providers: [
    VerificationsEraser,
    VerificationService,
    VerificationRepository,
    VerificationCodes,
    VerificationSendLimiter,
    VerificationPurger,
  ],
})
export class VerificationModule {}
