import { FormEvent, useEffect, useState } from 'react';
import { useClient } from '../api/context';
import { ApiFailure, unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction, useApi, usePolling } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Section } from '../components/page';
import { ShownOnce } from '../components/secret';
import { Status, When } from '../components/status';

type Delivery = Schemas['WebhookDelivery'];

function Attempts({ d }: { d: Delivery }) {
  return (
    <div data-testid="test-delivery">
      <p>
        Test event <code>{d.id}</code>: <Status value={d.status} /> after {d.attemptCount} attempt
        {d.attemptCount === 1 ? '' : 's'}
        {d.lastHttpStatus !== null && <> (last answer HTTP {d.lastHttpStatus})</>}
        {d.lastError && <> - {d.lastError}</>}
      </p>
      <ul className="small">
        {d.attempts.map((a) => (
          <li key={a.attempt}>
            Attempt {a.attempt} at <When at={a.at} />: {a.httpStatus === null ? 'no answer' : `HTTP ${a.httpStatus}`} in{' '}
            {a.durationMs} ms
            {a.error && ` (${a.error})`}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The web-session webhook: URL, masked key, rotate, remove, send a test event and follow its delivery. */
export function WebhookPanel({ onDelivery }: { onDelivery(): void }) {
  const client = useClient();
  const settings = useApi(async () => {
    try {
      return (await unwrap(client.GET('/api/v2/webhooks/chatapp-web'))).data;
    } catch (err) {
      // Not configured yet: an empty form, not an error.
      if (err instanceof ApiFailure && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }, 'webhook');
  const [url, setUrl] = useState<string | null>(null);
  const [fullKey, setFullKey] = useState<string | null>(null);
  const [testId, setTestId] = useState<string | null>(null);
  const shownUrl = url ?? settings.data?.url ?? '';

  const keep = (d: Schemas['WebhookSettings']) => {
    if (!d.webhookApiKey.includes('****')) setFullKey(d.webhookApiKey);
    setUrl(null);
    settings.reload();
  };
  const save = useAction(async () =>
    keep((await unwrap(client.PUT('/api/v2/webhooks/chatapp-web', { body: { url: shownUrl.trim() } }))).data),
  );
  const rotate = useAction(async () =>
    keep((await unwrap(client.POST('/api/v2/webhooks/chatapp-web/rotate-key'))).data),
  );
  const remove = useAction(async () => {
    await unwrap(client.DELETE('/api/v2/webhooks/chatapp-web'));
    setTestId(null);
    settings.reload();
  });
  const test = useAction(async () => {
    const { data } = await unwrap(client.POST('/api/v2/webhooks/chatapp-web/test'));
    setTestId(data.deliveryId);
    onDelivery();
  });
  // The test delivery's fate: read from the delivery log until it is no longer pending.
  const delivery = useApi(async () => {
    if (!testId) return null;
    const { data } = await unwrap(client.GET('/api/v2/webhooks/deliveries', { params: { query: { limit: 20 } } }));
    return data.deliveries.find((d) => d.id === testId) ?? null;
  }, `${testId}`);
  const pending = !!testId && (!delivery.data || delivery.data.status === 'pending');
  usePolling(delivery.reload, 1000, pending && !delivery.loading);
  const settled = testId && delivery.data && delivery.data.status !== 'pending' ? delivery.data.status : null;
  useEffect(() => {
    if (settled) onDelivery();
  }, [settled, onDelivery]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  const configured = !!settings.data;
  return (
    <Section title="Web-session webhook" id="webhook">
      <p className="muted small">
        Inbound web-session messages (<code>chatapp_web.message.received</code>) are posted to this URL with the webhook
        key in <code>X-API-Key</code> and <code>Authorization: Bearer</code>.
      </p>
      <ErrorBox error={settings.error} />
      <form className="row" onSubmit={submit} aria-label="Set the web-session webhook">
        <label htmlFor="webhook-url">Webhook URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          className="grow"
          value={shownUrl}
          placeholder="https://example.com/hooks/chatapp-web"
          onChange={(e) => setUrl(e.target.value)}
        />
        <button type="submit" className="primary" disabled={save.busy || !shownUrl.trim()}>
          {configured ? 'Save URL' : 'Set webhook'}
        </button>
      </form>
      <ErrorBox error={save.error} />
      {configured && (
        <p>
          Webhook key: <code data-testid="webhook-key">{settings.data?.webhookApiKey}</code>
        </p>
      )}
      {fullKey && <ShownOnce label="Webhook key" value={fullKey} onDone={() => setFullKey(null)} />}
      <div className="row">
        <button type="button" onClick={() => void test.run()} disabled={!configured || test.busy}>
          Send test event
        </button>
        <button type="button" onClick={() => void rotate.run()} disabled={!configured || rotate.busy}>
          Rotate key
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => void remove.run()}
          disabled={!configured || remove.busy}
        >
          Remove webhook
        </button>
      </div>
      <ErrorBox error={test.error ?? rotate.error ?? remove.error ?? delivery.error} />
      {testId && (
        <div aria-live="polite">
          {delivery.data ? <Attempts d={delivery.data} /> : <p className="muted">Test event {testId} queued...</p>}
        </div>
      )}
    </Section>
  );
}
