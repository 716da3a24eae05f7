import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { AppConfig } from '../config/app-config';
import { AdminTemplatesController } from './admin-templates.controller';
import { OfficialSenderEntity } from './entities/official-sender.entity';
import { TemplateMediaEntity } from './entities/template-media.entity';
import { TemplateEntity } from './entities/template.entity';
import { MediaIngest } from './media/media-ingest';
import { MediaPreviewController } from './media/media-preview.controller';
import { LocalDiskMediaStorage, MediaStorage } from './media/media-storage';
import { MEDIA_MAX_BYTES } from './media/media-types';
import { ingestStorage } from './media/multer-ingest.storage';
import { TemplateMediaService } from './media/template-media.service';
import { CloudApiTemplateClient } from './official/cloud-api-template.client';
import { OfficialSendersController } from './official/official-senders.controller';
import { OfficialSendersService } from './official/official-senders.service';
import { OfficialTemplateClient } from './official/official-template-client';
import { SandboxTemplateClient } from './official/sandbox-template.client';
import { TemplateStatusHookController } from './official/template-status-hook.controller';
import { TemplateStatusPoller } from './official/template-status.poller';
import { TemplateCreationService } from './template-creation.service';
import { TemplateViewMapper } from './template-view.mapper';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/** Templates, header media and official chat-app senders. Must not import messaging or bulk. */
@Module({
  imports: [
    AccountsModule,
    TypeOrmModule.forFeature([TemplateEntity, TemplateMediaEntity, OfficialSenderEntity]),
    // Uploads stream through MediaIngest: type from the bytes, per-type cap enforced mid-stream; the
    // 100 MB fileSize limit is the hard stop before the type is known.
    MulterModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        storage: ingestStorage(new MediaIngest(config)),
        limits: { fileSize: MEDIA_MAX_BYTES, files: 2, fields: 40, fieldSize: 1024 * 1024, parts: 50 },
      }),
    }),
  ],
  controllers: [TemplatesController, OfficialSendersController, MediaPreviewController, AdminTemplatesController, TemplateStatusHookController],
  providers: [
    TemplatesService,
    TemplateCreationService,
    TemplateViewMapper,
    OfficialSendersService,
    TemplateMediaService,
    MediaIngest,
    TemplateStatusPoller,
    { provide: MediaStorage, useClass: LocalDiskMediaStorage },
    {
      provide: OfficialTemplateClient,
      inject: [AppConfig],
      useFactory: (config: AppConfig): OfficialTemplateClient =>
        config.providers.chatapp === 'cloud_api' ? new CloudApiTemplateClient(config) : new SandboxTemplateClient(),
    },
  ],
  exports: [TemplatesService],
})
export class TemplatesModule {}
