import { useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When } from '../components/status';

const FILTERS = ['pending', 'delivered', 'failed'] as const;

/** Every webhook delivery of the account (test events, inbound messages, sender reviews), newest first. */
export function DeliveryLog({ version }: { version: number }) {
  const client = useClient();
  const [status, setStatus] = useState<(typeof FILTERS)[number] | ''>('');
  const pager = useCursor(status);
  const log = useApi(
    async () => (await unwrap(client.GET('/api/v2/webhooks/deliveries', { params: { query: { status: status || undefined, cursor: pager.cursor, limit: 20 } } }))).data,
    `${status}|${pager.cursor}|${version}`,
  );
  return (
    <Section title="Delivery log" id="deliveries">
      <div className="row">
        <span className="pair">
          <label htmlFor="delivery-status">Deliveries with status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
          <option value="">Any</option>
          {FILTERS.map((s) => <option key={s}>{s}</option>)}
        </select>
        </span>
        <button type="button" onClick={log.reload}>Refresh</button>
      </div>
      <ErrorBox error={log.error} />
      {log.data && log.data.deliveries.length === 0 && <Empty>No deliveries.</Empty>}
      {log.data && log.data.deliveries.length > 0 && (
        <TableBox label="Webhook deliveries">
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">URL</th>
            </tr>
          </thead>
          <tbody>
            {log.data.deliveries.map((d) => (
              <tr key={d.id}>
                <td><When at={d.createdAt} /></td>
                <td className="mono">{d.event}</td>
                <td><Status value={d.status} /></td>
                <td>{d.attemptCount}</td>
                <td>{d.lastHttpStatus ?? d.lastError ?? '-'}</td>
                <td className="wrap mono small">{d.url}</td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
      <Pager pager={pager} nextCursor={log.data?.nextCursor} label="Deliveries" />
    </Section>
  );
}
