import { FormEvent } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Page, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When, money } from '../components/status';
import { Link, navigate, useQuery } from '../router';

const STATUSES = ['scheduled', 'queued', 'sent', 'delivered', 'read', 'failed', 'cancelled'] as const;
const CHANNELS = ['local_sms', 'chatapp', 'chatapp_web', 'messaging_bot', 'email'] as const;

function oneOf<T extends string>(values: readonly T[], v: string | null): T | undefined {
  return values.find((x) => x === v);
}

/** The message log: filters live in the URL (the overview links here with ?status=...). */
export function MessagesPage() {
  const client = useClient();
  const q = useQuery();
  const status = oneOf(STATUSES, q.get('status'));
  const channel = oneOf(CHANNELS, q.get('channel'));
  const bulkJobId = q.get('bulkJobId') || undefined;
  const filterKey = `${status}|${channel}|${bulkJobId}`;
  const pager = useCursor(filterKey);
  const list = useApi(
    async () =>
      (
        await unwrap(
          client.GET('/api/v2/messages', {
            params: { query: { status, channel, bulkJobId, limit: 50, cursor: pager.cursor } },
          }),
        )
      ).data,
    `${filterKey}|${pager.cursor}`,
  );

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const name of ['status', 'channel', 'bulkJobId']) {
      const v = String(form.get(name) ?? '').trim();
      if (v) next.set(name, v);
    }
    const qs = next.toString();
    navigate(qs ? `/messages?${qs}` : '/messages');
  };

  return (
    <Page
      title="Messages"
      actions={
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      }
    >
      <form className="card form-grid" onSubmit={apply} aria-label="Filter messages" key={filterKey}>
        <div>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" name="status" defaultValue={status ?? ''}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-channel">Channel</label>
          <select id="f-channel" name="channel" defaultValue={channel ?? ''}>
            <option value="">Any</option>
            {CHANNELS.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-job">Bulk job id</label>
          <input id="f-job" name="bulkJobId" defaultValue={bulkJobId ?? ''} className="mono" />
        </div>
        <div>
          <button type="submit" className="primary">
            Apply filters
          </button>
        </div>
      </form>
      <ErrorBox error={list.error} />
      {list.data && list.data.messages.length === 0 && <Empty>No messages match.</Empty>}
      {list.data && list.data.messages.length > 0 && (
        <TableBox label="Messages">
          <thead>
            <tr>
              <th scope="col">To</th>
              <th scope="col">Status</th>
              <th scope="col">Channel</th>
              <th scope="col">Created</th>
              <th scope="col">Type</th>
              <th scope="col">Cost</th>
              <th scope="col">Message id</th>
            </tr>
          </thead>
          <tbody>
            {list.data.messages.map((m) => (
              <tr key={m.id}>
                <td>
                  <Link to={`/messages/${encodeURIComponent(m.id)}`} className="mono">
                    {m.to}
                  </Link>
                </td>
                <td>
                  <Status value={m.status} />
                </td>
                <td>{m.channel}</td>
                <td>
                  <When at={m.createdAt} />
                </td>
                <td>{m.messageType}</td>
                <td>
                  {money(m.cost)} <span className="muted small">{m.paidFrom}</span>
                </td>
                <td className="mono small">{m.id}</td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
      <Pager pager={pager} nextCursor={list.data?.nextCursor} label="Messages" />
    </Page>
  );
}
