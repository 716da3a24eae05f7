import { Module } from '@nestjs/common';

// Owned by the providers feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class ProvidersModule {}
