import { Module } from '@nestjs/common';

// Owned by the bulk feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class BulkModule {}
