import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { MarketingRules } from '../../messaging/validation/lookups';
import { ComplianceSettingsService } from './compliance-settings.service';
import { nextOpening, zoneOfNumber } from './sending-hours';
import type { AccountId } from '../../common/account-id';

/** One message to judge: marketing to a phone number is held outside the window. */
export interface HoursSubject {
  accountId: AccountId;
  /** E.164, or a web-session chat id `<digits>@c.us` (other recipients have no zone and are never held). */
  recipient: string;
  purpose: 'transactional' | 'marketing';
  /** When the message would go out (a scheduled send's time); default now. */
  at?: number;
}

const PHONE = /^\+?(\d{6,15})(?:@(?:c\.us|s\.whatsapp\.net))?$/;

/**
 * Marketing sending hours (issue 28 item 6): per subject, null when it may go out at its time, else
 * the epoch ms the account's window next opens in the recipient's zone. One read of the settings per
 * account in the list (a bulk window: one).
 */
@Injectable()
export class SendingHours {
  constructor(
    private readonly settings: ComplianceSettingsService,
    private readonly clock: Clock,
  ) {}

  async holds(subjects: readonly HoursSubject[]): Promise<(number | null)[]> {
    const rules = new Map<string, Promise<MarketingRules>>();
    const now = this.clock.now();
    const out: (number | null)[] = [];
    for (const s of subjects) {
      const m = s.purpose === 'marketing' ? PHONE.exec(s.recipient) : null;
      if (!m) {
        out.push(null);
        continue;
      }
      let read = rules.get(s.accountId);
      if (!read) {
        read = this.settings.marketingRules(s.accountId);
        rules.set(s.accountId, read);
      }
      const r = await read;
      out.push(nextOpening(s.at ?? now, zoneOfNumber(`+${m[1]}`, r.defaultTimeZones), r.window));
    }
    return out;
  }
}
