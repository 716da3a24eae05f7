import { Injectable } from '@nestjs/common';
import { isLiveAccount } from '../../accounts/account-mode';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import type { AccountUsage, UsageAmounts, UsagePeriod } from './dto/usage.dto';
import { UsageRecord, UsageRepository, utcDay } from './usage.repository';
import type { AccountId } from '../../common/account-id';

const DAY = 86_400_000;
/** The longest range one request reads: 13 months of days, ten years of months. */
const MAX_DAYS = { day: 400, month: 3660 } as const;

type Granularity = 'day' | 'month';

/** GET /api/v2/account/usage: the daily usage records, by day or month, zero-filled. */
@Injectable()
export class UsageService {
  constructor(
    private readonly repo: UsageRepository,
    private readonly clock: Clock,
  ) {}

  async usage(
    accountId: AccountId,
    currency: string,
    q: { from?: string; to?: string; granularity?: Granularity },
  ): Promise<AccountUsage> {
    const granularity = q.granularity ?? 'day';
    const to = q.to ?? utcDay(this.clock.now());
    const toMs = dayMs(to, 'to');
    const from = q.from ?? utcDay(toMs - 29 * DAY);
    const fromMs = dayMs(from, 'from');
    if (fromMs > toMs) throw ApiError.validation('from must not be after to');
    if ((toMs - fromMs) / DAY + 1 > MAX_DAYS[granularity])
      throw ApiError.validation(`at most ${MAX_DAYS[granularity]} days per request with granularity=${granularity}`);
    const periods = new Map<string, UsagePeriod>();
    for (let t = fromMs; t <= toMs; t += DAY) {
      const p = periodOf(utcDay(t), granularity);
      if (!periods.has(p)) periods.set(p, emptyPeriod(p));
    }
    const totals = amounts();
    for (const r of await this.repo.range(accountId, from, to)) {
      const p = periods.get(periodOf(r.day, granularity));
      if (!p) continue;
      add(p, r);
      add(totals, r);
      if (r.source === 'free' || r.source === 'quota' || r.source === 'wallet') add(p.bySource[r.source], r);
      let ch = p.byChannel.find((c) => c.channel === r.channel);
      if (!ch) p.byChannel.push((ch = { channel: r.channel, ...amounts() }));
      add(ch, r);
    }
    for (const p of periods.values()) p.byChannel.sort((a, b) => (a.channel < b.channel ? -1 : 1));
    return {
      from,
      to,
      granularity,
      currency,
      periods: [...periods.values()],
      totals,
      livemode: isLiveAccount(accountId),
    };
  }
}

/** Epoch ms of a YYYY-MM-DD that is a real day; 400 VALIDATION_ERROR otherwise. */
function dayMs(day: string, field: string): number {
  const ms = Date.parse(`${day}T00:00:00.000Z`);
  if (Number.isNaN(ms) || utcDay(ms) !== day) throw ApiError.validation(`${field} must be a date YYYY-MM-DD`);
  return ms;
}

const periodOf = (day: string, g: Granularity): string => (g === 'day' ? day : day.slice(0, 7));
const amounts = (): UsageAmounts => ({ messages: 0, parts: 0, cost: 0 });
const emptyPeriod = (period: string): UsagePeriod => ({
  period,
  ...amounts(),
  bySource: { free: amounts(), quota: amounts(), wallet: amounts() },
  byChannel: [],
});

function add(to: UsageAmounts, r: UsageRecord): void {
  to.messages += r.messages;
  to.parts += r.parts;
  to.cost += r.cost;
}
