import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { iso } from '../../database/columns';
import type { ComplianceSettingsLookup, MarketingRules, WeekDay } from '../../messaging/validation/lookups';
import type { ComplianceSettingsEntity } from './compliance-settings.entity';
import { ComplianceSettingsRepository } from './compliance-settings.repository';
import {
  checkWindow,
  DEFAULT_RULES,
  readDays,
  readDomains,
  readFooter,
  readWindowTime,
  readZones,
} from './compliance-rules';
import type { UpdateComplianceDto } from './dto/compliance.dto';
import type { AccountId } from '../../common/account-id';

export interface ComplianceView {
  marketingWindow: { start: string; end: string; days: WeekDay[] };
  defaultTimeZones: Record<string, string>;
  footer: { ar: string; en: string };
  allowedLinkDomains: string[];
  source: 'default' | 'account';
  updatedAt: string | null;
}

/**
 * An account's marketing compliance settings (issue 28 items 5 and 6): the sending window, the zones of
 * countries with several, the opt-out footers and the link hosts. Messaging reads them through its
 * COMPLIANCE_SETTINGS port (once per validation context).
 */
@Injectable()
export class ComplianceSettingsService implements ComplianceSettingsLookup {
  constructor(
    private readonly repo: ComplianceSettingsRepository,
    private readonly clock: Clock,
  ) {}

  async marketingRules(accountId: AccountId): Promise<MarketingRules> {
    const row = await this.repo.find(accountId);
    return row ? fromRow(row) : DEFAULT_RULES;
  }

  async view(accountId: AccountId): Promise<ComplianceView> {
    const row = await this.repo.find(accountId);
    return toView(row ? fromRow(row) : DEFAULT_RULES, row);
  }

  /** The owner's change: fields given replace the current ones, the rest stay. */
  async update(accountId: AccountId, dto: UpdateComplianceDto): Promise<ComplianceView> {
    const cur = await this.marketingRules(accountId);
    const w = dto.marketingWindow ?? {};
    const start = w.start === undefined ? cur.window.start : readWindowTime('marketingWindow.start', w.start);
    const end = w.end === undefined ? cur.window.end : readWindowTime('marketingWindow.end', w.end);
    checkWindow(start, end);
    const row: ComplianceSettingsEntity = {
      accountId,
      windowStart: start,
      windowEnd: end,
      windowDays: (w.days === undefined ? cur.window.days : readDays(w.days)).join(','),
      defaultTimeZones: JSON.stringify(
        dto.defaultTimeZones === undefined ? cur.defaultTimeZones : readZones(dto.defaultTimeZones),
      ),
      footerAr: dto.footer?.ar === undefined ? cur.footer.ar : readFooter('footer.ar', dto.footer.ar),
      footerEn: dto.footer?.en === undefined ? cur.footer.en : readFooter('footer.en', dto.footer.en),
      allowedLinkDomains: (dto.allowedLinkDomains === undefined
        ? cur.allowedLinkDomains
        : readDomains(dto.allowedLinkDomains)
      ).join(','),
      updatedAt: this.clock.now(),
    };
    await this.repo.put(row);
    return toView(fromRow(row), row);
  }
}

function fromRow(row: ComplianceSettingsEntity): MarketingRules {
  return {
    footer: { ar: row.footerAr, en: row.footerEn },
    allowedLinkDomains: row.allowedLinkDomains ? row.allowedLinkDomains.split(',') : [],
    window: { start: row.windowStart, end: row.windowEnd, days: row.windowDays.split(',') as WeekDay[] },
    defaultTimeZones: JSON.parse(row.defaultTimeZones) as Record<string, string>,
  };
}

function toView(rules: MarketingRules, row: ComplianceSettingsEntity | null): ComplianceView {
  return {
    marketingWindow: { ...rules.window, days: [...rules.window.days] },
    defaultTimeZones: { ...rules.defaultTimeZones },
    footer: { ...rules.footer },
    allowedLinkDomains: [...rules.allowedLinkDomains],
    source: row ? 'account' : 'default',
    updatedAt: row ? iso(row.updatedAt) : null,
  };
}
