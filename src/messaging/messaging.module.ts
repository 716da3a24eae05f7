import { Module } from '@nestjs/common';

// Owned by the messaging feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class MessagingModule {}
