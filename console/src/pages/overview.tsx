import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { MessagingClient, Schemas } from '../api/public';
import { useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Page, Section } from '../components/page';
import { money, Status } from '../components/status';
import { Link } from '../router';
import { FraudBlocksSection } from './overview-fraud-blocks';
import { UsageChartSection } from './overview-usage';
import { VerificationChartSection } from './overview-verification';

const STATUSES = ['scheduled', 'queued', 'sent', 'delivered', 'read', 'failed', 'cancelled'] as const;
// The message log has no date filter: count the newest pages until a message from before today
// appears, and say so when the cap stops the count first.
const PAGE = 100;
const MAX_PAGES = 20;

interface TodayCounts {
  byStatus: Record<string, number>;
  total: number;
  capped: boolean;
}

async function countToday(client: MessagingClient): Promise<TodayCounts> {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const byStatus: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
  let total = 0;
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i += 1) {
    const { data } = await unwrap(client.GET('/api/v2/messages', { params: { query: { limit: PAGE, cursor } } }));
    for (const m of data.messages) {
      if (new Date(m.createdAt) < midnight) return { byStatus, total, capped: false };
      byStatus[m.status] = (byStatus[m.status] ?? 0) + 1;
      total += 1;
    }
    if (!data.nextCursor) return { byStatus, total, capped: false };
    cursor = data.nextCursor;
  }
  return { byStatus, total, capped: true };
}

function AccountFacts({ account }: { account: Schemas['AccountResource'] }) {
  const plan = account.plan;
  return (
    <dl className="facts">
      <div>
        <dt>Wallet balance</dt>
        <dd data-testid="balance">{money(account.walletBalance, account.currency)}</dd>
      </div>
      <div>
        <dt>Plan</dt>
        <dd>
          {plan ? plan.name : 'No plan'}
          {plan && <span className="dd-note">{`${plan.messagesUsed} of ${plan.messageQuota} messages used`}</span>}
        </dd>
      </div>
      <div>
        <dt>Free messages</dt>
        <dd>{account.freeMessages}</dd>
      </div>
      <div>
        <dt>Subscription</dt>
        <dd>{account.subscriptionActive ? 'active' : 'inactive'}</dd>
      </div>
      <div>
        <dt>Phone verified</dt>
        <dd>{account.phoneVerified ? 'yes' : 'no'}</dd>
      </div>
    </dl>
  );
}

export function OverviewPage() {
  const client = useClient();
  const account = useApi(async () => (await unwrap(client.GET('/api/v2/account'))).data, 'account');
  const today = useApi(() => countToday(client), 'today');
  return (
    <Page title={account.data ? `Overview: ${account.data.name}` : 'Overview'}>
      <Section title="Account">
        <ErrorBox error={account.error} />
        {account.data && <AccountFacts account={account.data} />}
        {account.data && (
          <p className="muted small">
            Account id <code>{account.data.id}</code>
          </p>
        )}
      </Section>
      <Section title="Today's messages">
        <ErrorBox error={today.error} />
        {today.data && (
          <>
            <ul className="tiles" aria-label="Messages today by status">
              {STATUSES.map((s) => (
                <li key={s}>
                  <Link to={`/messages?status=${s}`} className="tile">
                    <span className="tile-n">{today.data?.byStatus[s] ?? 0}</span>
                    <Status value={s} />
                  </Link>
                </li>
              ))}
            </ul>
            <p className="muted small">
              {today.data.capped ? 'At least ' : ''}
              {today.data.total === 1 ? '1 message' : `${today.data.total} messages`} since midnight (this
              browser&apos;s time zone).
            </p>
          </>
        )}
        {today.loading && !today.data && <p className="muted">Counting...</p>}
      </Section>
      <UsageChartSection />
      <VerificationChartSection />
      <FraudBlocksSection />
    </Page>
  );
}
