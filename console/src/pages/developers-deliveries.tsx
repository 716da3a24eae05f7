import { useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When } from '../components/status';
import { EVENT_TYPES } from '../api/event-types';

const FILTERS = ['pending', 'delivered', 'failed'] as const;

/** Every webhook delivery of the account (event endpoints, test events, inbound messages, sender reviews), newest first; redeliver. */
export function DeliveryLog({ version, onDelivery }: { version: number; onDelivery(): void }) {
  const client = useClient();
  const [status, setStatus] = useState<(typeof FILTERS)[number] | ''>('');
  const [endpointId, setEndpointId] = useState('');
  const [event, setEvent] = useState('');
  const filters = `${status}|${endpointId}|${event}`;
  const pager = useCursor(filters);
  const log = useApi(
    async () =>
      (
        await unwrap(
          client.GET('/api/v2/webhooks/deliveries', {
            params: {
              query: {
                status: status || undefined,
                endpointId: endpointId || undefined,
                event: event || undefined,
                cursor: pager.cursor,
                limit: 20,
              },
            },
          }),
        )
      ).data,
    `${filters}|${pager.cursor}|${version}`,
  );
  // For the endpoint filter: the account's endpoints (owner keys only; without them the filter is hidden).
  const endpoints = useApi(
    async () => (await unwrap(client.GET('/api/v2/webhooks/endpoints'))).data.endpoints,
    `${version}`,
  );
  const redeliver = useAction(async (id: string) => {
    await unwrap(client.POST('/api/v2/webhooks/deliveries/{id}/redeliver', { params: { path: { id } } }));
    onDelivery();
  });
  return (
    <Section title="Delivery log" id="deliveries">
      <div className="row" role="group" aria-label="Delivery filters">
        <span className="pair">
          <label htmlFor="delivery-status">Deliveries with status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="">Any</option>
            {FILTERS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </span>
        {endpoints.data && endpoints.data.length > 0 && (
          <span className="pair">
            <label htmlFor="delivery-endpoint">Endpoint</label>
            <select id="delivery-endpoint" value={endpointId} onChange={(e) => setEndpointId(e.target.value)}>
              <option value="">Any</option>
              {endpoints.data.map((ep) => (
                <option key={ep.id} value={ep.id}>
                  {ep.description || ep.url}
                </option>
              ))}
            </select>
          </span>
        )}
        <span className="pair">
          <label htmlFor="delivery-event">Event</label>
          <select id="delivery-event" value={event} onChange={(e) => setEvent(e.target.value)}>
            <option value="">Any</option>
            {EVENT_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </span>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <ErrorBox error={log.error ?? redeliver.error} />
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
              <th scope="col">
                <span className="sr-only">Redeliver</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {log.data.deliveries.map((d) => (
              <tr key={d.id}>
                <td>
                  <When at={d.createdAt} />
                </td>
                <td className="mono">{d.event}</td>
                <td>
                  <Status value={d.status} />
                </td>
                <td>{d.attemptCount}</td>
                <td>{d.lastHttpStatus ?? d.lastError ?? '-'}</td>
                <td className="wrap mono small">{d.url}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => void redeliver.run(d.id)}
                    disabled={redeliver.busy || d.status === 'pending'}
                    aria-label={`Redeliver ${d.event} ${d.id}`}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
      <Pager pager={pager} nextCursor={log.data?.nextCursor} label="Deliveries" />
    </Section>
  );
}
