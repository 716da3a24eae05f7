import { Module } from '@nestjs/common';

// Owned by the verification feature. Add entities (TypeOrmModule.forFeature), controllers and providers here.
@Module({})
export class VerificationModule {}
