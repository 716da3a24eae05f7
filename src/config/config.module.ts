import { Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { processConfig } from './process-config';

@Global()
@Module({
  providers: [{ provide: AppConfig, useFactory: processConfig }],
  exports: [AppConfig],
})
export class ConfigModule {}
