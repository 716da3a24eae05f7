import { Global, Module } from '@nestjs/common';
import { INBOUND_KEYWORDS } from '../../messaging/inbound/inbound-keywords';
import { MessagingModule } from '../../messaging/messaging.module';
import { InboundKeywordsService } from './inbound-keywords.service';
import { KeywordReplies } from './keyword-replies';
import { KeywordSettingsController } from './keyword-settings.controller';
import { KeywordSettingsRepository } from './keyword-settings.repository';
import { KeywordSettingsService } from './keyword-settings.service';

/**
 * Inbound keywords (issue 28 item 4), part of consent: the INBOUND_KEYWORDS port every inbound path
 * calls, and GET/PATCH /api/v2/account/keywords. Global only to hand out that port.
 */
@Global()
@Module({
  imports: [MessagingModule],
  controllers: [KeywordSettingsController],
  providers: [
    KeywordSettingsRepository,
    KeywordSettingsService,
    KeywordReplies,
    InboundKeywordsService,
    { provide: INBOUND_KEYWORDS, useExisting: InboundKeywordsService },
  ],
  exports: [INBOUND_KEYWORDS],
})
export class KeywordsModule {}
