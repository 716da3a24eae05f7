import { Module } from '@nestjs/common';

// Owned by the templates feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class TemplatesModule {}
