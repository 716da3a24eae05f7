import { Global, Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { isLiveAccount } from '../accounts/account-mode';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { TEMPLATE_LOOKUP } from '../messaging/validation/lookups';
import { AdminTemplatesController } from './admin-templates.controller';
import { OfficialSenderEntity } from './entities/official-sender.entity';
import { TemplateMediaEntity } from './entities/template-media.entity';
import { TemplateEntity } from './entities/template.entity';
import { MediaIngest } from './media/media-ingest';
import { MediaOrphanPurger } from './media/media-orphan.purger';
import { MediaPreviewController } from './media/media-preview.controller';
import { LocalDiskMediaStorage, MediaStorage } from './media/media-storage';
import { MEDIA_MAX_BYTES } from './media/media-types';
import { ingestStorage } from './media/multer-ingest.storage';
import { TemplateMediaService } from './media/template-media.service';
import { CloudApiTemplateClient } from './official/cloud-api-template.client';
import { ManualLinkVerifier } from './official/manual-link.verifier';
import { OfficialSendersController } from './official/official-senders.controller';
import { OfficialSendersService } from './official/official-senders.service';
import { ByAccountTemplateClient, OfficialTemplateClient } from './official/official-template-client';
import { SandboxOfficialTemplateEntity } from './official/sandbox-official-template.entity';
import { SandboxTemplateClient } from './official/sandbox-template.client';
import { CloudApiHookController } from './official/cloud-api-hook.controller';
import { TemplateStatusHookController } from './official/template-status-hook.controller';
import { TemplateStatusPoller } from './official/template-status.poller';
import { TemplateCreationService } from './template-creation.service';
import { TemplateViewMapper } from './template-view.mapper';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/**
 * Templates, header media and official chat-app senders. Global to hand messaging its
 * TEMPLATE_LOOKUP port (messaging sits below the features); TemplatesService is exported for the
 * test-mode controls' review.
 */
@Global()
@Module({
  imports: [
    AccountsModule,
    TypeOrmModule.forFeature([
      TemplateEntity,
      TemplateMediaEntity,
      OfficialSenderEntity,
      SandboxOfficialTemplateEntity,
    ]),
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
  controllers: [
    TemplatesController,
    OfficialSendersController,
    MediaPreviewController,
    AdminTemplatesController,
    TemplateStatusHookController,
    CloudApiHookController,
  ],
  providers: [
    TemplatesService,
    TemplateCreationService,
    TemplateViewMapper,
    OfficialSendersService,
    TemplateMediaService,
    MediaIngest,
    TemplateStatusPoller,
    ManualLinkVerifier,
    MediaOrphanPurger,
    { provide: TEMPLATE_LOOKUP, useExisting: TemplatesService },
    { provide: MediaStorage, useClass: LocalDiskMediaStorage },
    {
      provide: OfficialTemplateClient,
      inject: [AppConfig, DataSource, Clock],
      useFactory: (config: AppConfig, ds: DataSource, clock: Clock): OfficialTemplateClient => {
        const sandbox = new SandboxTemplateClient(ds.getRepository(SandboxOfficialTemplateEntity), clock);
        if (config.providers.byChannel.chatapp !== 'cloud_api') return sandbox;
        const live = new CloudApiTemplateClient(config);
        // As the provider registry does for sends: templates of an account's test mode go to the sandbox.
        return new ByAccountTemplateClient(live, (accountId) =>
          accountId === null || isLiveAccount(accountId) ? live : sandbox,
        );
      },
    },
  ],
  exports: [TEMPLATE_LOOKUP, TemplatesService],
})
export class TemplatesModule {}
