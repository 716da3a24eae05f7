import { Module } from '@nestjs/common';

// Owned by the webhooks feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class WebhooksModule {}
