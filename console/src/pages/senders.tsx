import { FormEvent, useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Status, When } from '../components/status';

/** SMS sender names: request one (owner key), follow its review status. */
export function SendersPage() {
  const client = useClient();
  const list = useApi(async () => (await unwrap(client.GET('/api/v2/sms-senders'))).data.smsSenders, 'senders');
  const [withWebhook, setWithWebhook] = useState(false);
  const request = useAction(
    async (body: Schemas['CreateSmsSenderDto']) =>
      (await unwrap(client.POST('/api/v2/sms-senders', { body }))).data.smsSender,
  );

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const body: Schemas['CreateSmsSenderDto'] = { name: String(f.get('name') ?? '').trim() };
    if (withWebhook) {
      body.webhookUrl = String(f.get('webhookUrl') ?? '').trim();
      body.webhookSecret = String(f.get('webhookSecret') ?? '');
    }
    if (await request.run(body)) {
      form.reset();
      list.reload();
    }
  };

  return (
    <Page title="Sender names">
      <Section title="Request a sender name">
        <p className="muted small">
          A new name is <code>pending</code> until an operator approves or rejects it. Only the account owner&apos;s key
          may request one.
        </p>
        <form className="stack" onSubmit={(e) => void submit(e)} aria-label="Request a sender name">
          <div className="form-grid">
            <div>
              <label htmlFor="s-name">Sender name</label>
              <input id="s-name" name="name" required maxLength={100} />
            </div>
            <div className="checks">
              <label>
                <input type="checkbox" checked={withWebhook} onChange={(e) => setWithWebhook(e.target.checked)} />{' '}
                Notify a webhook of the review
              </label>
            </div>
            {withWebhook && (
              <>
                <div>
                  <label htmlFor="s-url">Webhook URL (https)</label>
                  <input id="s-url" name="webhookUrl" type="url" required />
                </div>
                <div>
                  <label htmlFor="s-secret">Webhook secret (sent as Bearer)</label>
                  <input id="s-secret" name="webhookSecret" type="password" autoComplete="off" required />
                </div>
              </>
            )}
          </div>
          <ErrorBox error={request.error} />
          {request.result && (
            <p className="notice" role="status">
              Requested <strong>{request.result.name}</strong>: <Status value={request.result.status} />
            </p>
          )}
          <div>
            <button type="submit" className="primary" disabled={request.busy}>
              Request sender name
            </button>
          </div>
        </form>
      </Section>
      <Section title="Your sender names">
        <div className="row">
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </div>
        <ErrorBox error={list.error} />
        {list.data && list.data.length === 0 && <Empty>No sender names yet.</Empty>}
        {list.data && list.data.length > 0 && (
          <TableBox label="Sender names">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Default</th>
                <th scope="col">Webhook</th>
                <th scope="col">Reason</th>
                <th scope="col">Reviewed</th>
                <th scope="col">Requested</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((s) => (
                <tr key={s.id} data-testid={`sender-${s.name}`}>
                  <td>{s.name}</td>
                  <td>
                    <Status value={s.status} />
                  </td>
                  <td>{s.isDefault ? 'yes' : 'no'}</td>
                  <td>{s.webhookConfigured ? 'yes' : 'no'}</td>
                  <td className="wrap">{s.reason ?? '-'}</td>
                  <td>
                    <When at={s.reviewedAt} />
                  </td>
                  <td>
                    <When at={s.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        )}
      </Section>
    </Page>
  );
}
