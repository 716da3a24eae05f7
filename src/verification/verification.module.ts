import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { VerificationSendWindowEntity } from './entities/verification-send-window.entity';
import { VerificationEntity } from './entities/verification.entity';

// One-time codes, delivered and billed through the messaging module's validator and send pipeline.
@Module({
  imports: [TypeOrmModule.forFeature([VerificationEntity, VerificationSendWindowEntity])],
})
export class VerificationModule {}
