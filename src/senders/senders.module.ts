import { Module } from '@nestjs/common';

// Owned by the senders feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class SendersModule {}
