import { Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AccountApiModule } from './account-api/account-api.module';
import { AccountsModule } from './accounts/accounts.module';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { CommonModule } from './common/common.module';
import { ErrorEnvelopeFilter } from './common/errors';
import { createValidationPipe } from './common/validation.pipe';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ComplianceModule } from './consent/compliance/compliance.module';
import { ConsentModule } from './consent/consent.module';
import { KeywordsModule } from './consent/keywords/keywords.module';
import { FraudModule } from './fraud/fraud.module';
import { HealthModule } from './health/health.module';
import { BulkModule } from './bulk/bulk.module';
import { ChatappWebModule } from './chatapp-web/chatapp-web.module';
import { MessagingModule } from './messaging/messaging.module';
import { ProvidersModule } from './providers/providers.module';
import { SendersModule } from './senders/senders.module';
import { TemplatesModule } from './templates/templates.module';
import { VerificationModule } from './verification/verification.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { PrivacyModule } from './privacy/privacy.module';
import { TestModeModule } from './test-mode/test-mode.module';

/** Imports the feature modules; nothing else. */
@Module({
  imports: [
    ConfigModule,
    LoggingModule,
    CommonModule,
    DatabaseModule,
    ScheduleModule.forRoot(),
    MetricsModule,
    AuthModule,
    AccountsModule,
    AccountApiModule,
    AdminModule,
    HealthModule,
    ProvidersModule,
    WebhooksModule,
    SendersModule,
    TemplatesModule,
    ChatappWebModule,
    // Before MessagingModule: GET /api/v2/messages/bulk must be matched before GET /api/v2/messages/:id.
    BulkModule,
    MessagingModule,
    VerificationModule,
    FraudModule,
    PrivacyModule,
    ComplianceModule,
    ConsentModule,
    KeywordsModule,
    TestModeModule,
  ],
  providers: [
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
  ],
})
export class AppModule {}
