import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import type { UpdateKeywordSettingsDto } from './dto/keyword-settings.dto';
import { DEFAULT_KEYWORDS, type KeywordDefinition } from './keyword-matcher';
import { DEFAULT_KEYWORD_SETTINGS, type KeywordSettings } from './keyword-settings.types';
import { normalizeKeywordText } from './keyword-text';
import { KeywordSettingsRepository } from './keyword-settings.repository';
import type { AccountId } from '../../common/account-id';

/** An account's keyword settings: the defaults until the owner changes them. */
@Injectable()
export class KeywordSettingsService {
  constructor(
    private readonly repo: KeywordSettingsRepository,
    private readonly clock: Clock,
  ) {}

  async get(accountId: AccountId): Promise<KeywordSettings> {
    const stored = await this.repo.find(accountId);
    if (!stored) return DEFAULT_KEYWORD_SETTINGS;
    const s = JSON.parse(stored) as Partial<KeywordSettings>;
    return {
      extraKeywords: s.extraKeywords ?? [],
      helpText: s.helpText ?? DEFAULT_KEYWORD_SETTINGS.helpText,
      confirmations: { ...DEFAULT_KEYWORD_SETTINGS.confirmations, ...s.confirmations },
    };
  }

  /** The account's own keywords, as the matcher takes them. */
  async extraKeywords(accountId: AccountId): Promise<KeywordDefinition[]> {
    return (await this.get(accountId)).extraKeywords.map((k) => ({ ...k, language: 'custom' as const }));
  }

  async update(accountId: AccountId, dto: UpdateKeywordSettingsDto): Promise<KeywordSettings> {
    const current = await this.get(accountId);
    const extraKeywords =
      dto.extraKeywords?.map((k) => ({ word: k.word.trim(), kind: k.kind })) ?? current.extraKeywords;
    const seen = new Map(DEFAULT_KEYWORDS.map((k) => [normalizeKeywordText(k.word), 'a default keyword']));
    extraKeywords.forEach((k, i) => {
      const key = normalizeKeywordText(k.word);
      if (!key) throw ApiError.validation(`extraKeywords[${i}].word has no letters or digits`);
      const taken = seen.get(key);
      if (taken) throw ApiError.validation(`extraKeywords[${i}].word "${k.word}" is already ${taken}`);
      seen.set(key, `extraKeywords[${i}]`);
    });
    const next: KeywordSettings = {
      extraKeywords,
      helpText: dto.helpText ?? current.helpText,
      confirmations: {
        enabled: dto.confirmations?.enabled ?? current.confirmations.enabled,
        optOutText: dto.confirmations?.optOutText ?? current.confirmations.optOutText,
        optInText: dto.confirmations?.optInText ?? current.confirmations.optInText,
      },
    };
    await this.repo.save(accountId, JSON.stringify(next), this.clock.now());
    return next;
  }
}
