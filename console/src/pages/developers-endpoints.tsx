import { FormEvent, useState } from 'react';
import { useClient } from '../api/context';
import { EVENT_TYPES } from '../api/event-types';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Section, TableBox } from '../components/page';
import { ShownOnce } from '../components/secret';
import { Status, When } from '../components/status';

type Endpoint = Schemas['EventEndpoint'];

/** Event endpoints (owner key): create with events (the signing secret shown once), test, rotate, enable/disable, delete. */
export function EndpointsPanel({ onDelivery }: { onDelivery(): void }) {
  const client = useClient();
  const [version, setVersion] = useState(0);
  const refresh = () => setVersion((v) => v + 1);
  const list = useApi(
    async () => (await unwrap(client.GET('/api/v2/webhooks/endpoints'))).data.endpoints,
    `${version}`,
  );
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [queued, setQueued] = useState<string | null>(null);
  const create = useAction(
    async (body: Schemas['CreateEventEndpointDto']) =>
      (await unwrap(client.POST('/api/v2/webhooks/endpoints', { body }))).data.endpoint,
  );
  const act = useAction(async (what: 'test' | 'rotate' | 'toggle' | 'delete', ep: Endpoint) => {
    const path = { params: { path: { id: ep.id } } };
    setQueued(null);
    if (what === 'test') {
      const { data } = await unwrap(client.POST('/api/v2/webhooks/endpoints/{id}/test', path));
      setQueued(`Test event for ${ep.url} queued (delivery ${data.deliveryId}).`);
      onDelivery();
    } else if (what === 'rotate') {
      const { data } = await unwrap(client.POST('/api/v2/webhooks/endpoints/{id}/rotate-secret', path));
      setSecret({ label: `New signing secret of ${ep.url}`, value: data.endpoint.secret });
    } else if (what === 'toggle') {
      await unwrap(
        client.PATCH('/api/v2/webhooks/endpoints/{id}', {
          ...path,
          body: { status: ep.status === 'enabled' ? 'disabled' : 'enabled' },
        }),
      );
    } else {
      await unwrap(client.DELETE('/api/v2/webhooks/endpoints/{id}', path));
    }
    refresh();
  });

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const events = [
      ...f.getAll('events').map(String),
      ...String(f.get('patterns') ?? '')
        .split(/[\s,]+/)
        .filter(Boolean),
    ];
    const description = String(f.get('description') ?? '').trim();
    const created = await create.run({
      url: String(f.get('url') ?? '').trim(),
      events,
      ...(description ? { description } : {}),
    });
    if (created) {
      setSecret({ label: 'Signing secret', value: created.secret });
      form.reset();
      refresh();
    }
  };

  return (
    <Section title="Event endpoints" id="endpoints">
      <p className="muted small">
        Events are signed as Standard Webhooks (<code>webhook-id</code>, <code>webhook-timestamp</code>,{' '}
        <code>webhook-signature</code>) with the endpoint&apos;s secret.
      </p>
      <form className="stack" onSubmit={(e) => void submit(e)} aria-label="Create an event endpoint">
        <div className="form-grid">
          <div>
            <label htmlFor="endpoint-url">Endpoint URL</label>
            <input id="endpoint-url" name="url" type="url" required placeholder="https://example.com/hooks/events" />
          </div>
          <div>
            <label htmlFor="endpoint-description">Description</label>
            <input id="endpoint-description" name="description" maxLength={200} placeholder="Order system" />
          </div>
        </div>
        <fieldset>
          <legend>Events</legend>
          <div className="checks">
            {EVENT_TYPES.map((e) => (
              <label key={e}>
                <input type="checkbox" name="events" value={e} /> {e}
              </label>
            ))}
          </div>
          <label htmlFor="endpoint-patterns">
            Or patterns (space separated, e.g. <code>message.*</code> or <code>*</code>)
          </label>
          <input id="endpoint-patterns" name="patterns" placeholder="message.*" />
        </fieldset>
        <ErrorBox error={create.error} />
        <div>
          <button type="submit" className="primary" disabled={create.busy}>
            Create endpoint
          </button>
        </div>
      </form>
      {secret && <ShownOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <ErrorBox error={list.error ?? act.error} />
      {queued && <p aria-live="polite">{queued}</p>}
      {list.data && list.data.length === 0 && <Empty>No event endpoints.</Empty>}
      {list.data && list.data.length > 0 && (
        <TableBox label="Event endpoints">
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((ep) => (
              <tr key={ep.id}>
                <td className="wrap small">
                  <span className="mono">{ep.url}</span>
                  {ep.description && <div className="muted">{ep.description}</div>}
                </td>
                <td className="wrap small">{ep.events.join(', ')}</td>
                <td>
                  <Status value={ep.status} />
                  {ep.disabledReason && <div className="small">{ep.disabledReason}</div>}
                </td>
                <td>
                  <div className="row" role="group" aria-label={`Actions for ${ep.url}`}>
                    <button
                      type="button"
                      onClick={() => void act.run('test', ep)}
                      disabled={act.busy || ep.status !== 'enabled'}
                    >
                      Send test
                    </button>
                    <button type="button" onClick={() => void act.run('rotate', ep)} disabled={act.busy}>
                      Rotate secret
                    </button>
                    <button type="button" onClick={() => void act.run('toggle', ep)} disabled={act.busy}>
                      {ep.status === 'enabled' ? 'Disable' : 'Enable'}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => void act.run('delete', ep)}
                      disabled={act.busy}
                    >
                      Delete
                    </button>
                  </div>
                </td>
                <td>
                  <When at={ep.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
    </Section>
  );
}
