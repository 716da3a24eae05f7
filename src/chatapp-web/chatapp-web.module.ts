import { Module } from '@nestjs/common';

// Owned by the chatapp-web feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class ChatappWebModule {}
