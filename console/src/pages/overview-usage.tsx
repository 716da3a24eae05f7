import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useApi } from '../api/use-api';
import { DailyChart } from '../components/daily-chart';
import { ErrorBox } from '../components/error-box';
import { Section } from '../components/page';
import { money } from '../components/status';

const DAYS = 30;
export const USAGE_SERIES = [
  { label: 'messages', color: '#1f4e8c' },
  { label: 'SMS parts', color: '#8a5a00' },
];

/** Messages and SMS parts paid per UTC day, last 30 days (GET /account/usage); hidden for a key without messages:read. */
export function UsageChartSection() {
  const client = useClient();
  const usage = useApi(
    async () => (await unwrap(client.GET('/api/v2/account/usage', { params: { query: { granularity: 'day' } } }))).data,
    'account-usage',
  );
  if (usage.error?.status === 403) return null;
  const u = usage.data;
  return (
    <Section title={`Usage (last ${DAYS} days)`} id="usage-chart">
      <ErrorBox error={usage.error} />
      {u && (
        <>
          <DailyChart
            title={`Messages and SMS parts paid per day, last ${DAYS} days (UTC)`}
            description={`${u.totals.messages} messages, ${u.totals.parts} parts, ${money(u.totals.cost, u.currency)} from the wallet.`}
            series={USAGE_SERIES}
            days={u.periods.map((p) => ({ date: p.period, values: [p.messages, p.parts] }))}
          />
          <p className="muted small">
            {u.totals.messages === 0
              ? 'No messages paid'
              : `${u.totals.messages} messages (${u.totals.parts} parts), ${money(u.totals.cost, u.currency)} from the wallet`}{' '}
            in the last {DAYS} days, by UTC day the message was accepted; kept after the messages are deleted.
          </p>
        </>
      )}
      {usage.loading && !usage.data && <p className="muted">Loading...</p>}
    </Section>
  );
}
