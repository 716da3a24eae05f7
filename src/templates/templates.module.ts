import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OfficialSenderEntity } from './entities/official-sender.entity';
import { TemplateMediaEntity } from './entities/template-media.entity';
import { TemplateEntity } from './entities/template.entity';
import { OfficialSendersService } from './official/official-senders.service';
import { TemplateViewMapper } from './template-view.mapper';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/** Templates, header media and official chat-app senders. Must not import messaging or bulk. */
@Module({
  imports: [TypeOrmModule.forFeature([TemplateEntity, TemplateMediaEntity, OfficialSenderEntity])],
  controllers: [TemplatesController],
  providers: [TemplatesService, TemplateViewMapper, OfficialSendersService],
  exports: [TemplatesService],
})
export class TemplatesModule {}
