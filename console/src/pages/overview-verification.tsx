import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useApi } from '../api/use-api';
import { DailyChart } from '../components/daily-chart';
import { ErrorBox } from '../components/error-box';
import { Section } from '../components/page';

const DAYS = 14;
export const VERIFICATION_SERIES = [
  { label: 'sent', color: '#1f4e8c' },
  { label: 'verified', color: '#17663a' },
];

/** Codes sent vs verified per UTC day (GET /verification/stats); hidden for a key without messages:read. */
export function VerificationChartSection() {
  const client = useClient();
  const stats = useApi(
    async () => (await unwrap(client.GET('/api/v2/verification/stats', { params: { query: { days: DAYS } } }))).data,
    'verification-stats',
  );
  if (stats.error?.status === 403) return null;
  const days = stats.data?.days ?? [];
  const sent = days.reduce((n, d) => n + d.sent, 0);
  const verified = days.reduce((n, d) => n + d.verified, 0);
  return (
    <Section title={`Verification codes (last ${DAYS} days)`} id="verification-chart">
      <ErrorBox error={stats.error} />
      {stats.data && (
        <>
          <DailyChart
            title={`Verification codes sent and verified per day, last ${DAYS} days (UTC)`}
            description={`${sent} sent, ${verified} verified. A code counts on the day it was sent.`}
            series={VERIFICATION_SERIES}
            days={days.map((d) => ({ date: d.date, values: [d.sent, d.verified] }))}
          />
          <p className="muted small">
            {sent === 0
              ? 'No codes sent'
              : `${sent} sent, ${verified} verified (${Math.round((verified / sent) * 100)}%)`}{' '}
            in the last {DAYS} days, by UTC day of sending.
          </p>
        </>
      )}
      {stats.loading && !stats.data && <p className="muted">Loading...</p>}
    </Section>
  );
}
