import { FormEvent, useState } from 'react';
import { useAdmin } from '../api/context';
import { unwrap } from '../api/failure';
import type { AdminSchemas } from '../api/admin';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { OperatorTabs } from '../components/operator-tabs';
import { Empty, Page, Section, TableBox } from '../components/page';
import { When } from '../components/status';

const CHANNELS = ['local_sms', 'chatapp', 'chatapp_web', 'messaging_bot', 'email'] as const;
const KINDS = ['rate_limit', 'unavailable', 'reject', 'timeout'] as const;
type Channel = (typeof CHANNELS)[number];
type FaultBody = AdminSchemas['SandboxFaultDto'];
const LIMIT = 100;

function Faults() {
  const admin = useAdmin();
  const add = useAction(
    async (body: FaultBody) => (await unwrap(admin.POST('/admin/v1/sandbox/faults', { body }))).data.fault,
  );
  const clear = useAction(async () => (await unwrap(admin.DELETE('/admin/v1/sandbox/faults'))).data.cleared);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const channel = String(f.get('channel') ?? '');
    const accountId = String(f.get('accountId') ?? '').trim();
    void add.run({
      kind: String(f.get('kind')) as FaultBody['kind'],
      count: Number(f.get('count') || 1),
      channel: channel ? (channel as Channel) : undefined,
      accountId: accountId || undefined,
    });
  };
  return (
    <Section title="Injected faults">
      <p className="muted small">
        The next matching sandbox calls fail as chosen, so every error path can be tried end to end.
      </p>
      <form className="form-grid" onSubmit={submit} aria-label="Add a fault">
        <div>
          <label htmlFor="f-kind">Fault</label>
          <select id="f-kind" name="kind">
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-count">Calls that fail</label>
          <input id="f-count" name="count" type="number" min={1} max={1000000} step={1} defaultValue={1} required />
        </div>
        <div>
          <label htmlFor="f-channel">Channel</label>
          <select id="f-channel" name="channel">
            <option value="">Any</option>
            {CHANNELS.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-account">Account id (optional)</label>
          <input id="f-account" name="accountId" maxLength={40} className="mono" />
        </div>
        <div className="row">
          <button type="submit" className="primary" disabled={add.busy}>
            Add fault
          </button>
          <button type="button" className="danger" onClick={() => void clear.run()} disabled={clear.busy}>
            Clear all faults
          </button>
        </div>
      </form>
      <ErrorBox error={add.error ?? clear.error} />
      {add.result && (
        <p className="notice" role="status">
          Fault <code>{add.result.id}</code> added: {add.result.kind} x {add.result.count}.
        </p>
      )}
      {clear.result !== undefined && (
        <p className="notice" role="status">
          {clear.result} fault(s) cleared.
        </p>
      )}
    </Section>
  );
}

/** Operator: what the sandbox provider "delivered" (newest {LIMIT}), and fault injection. */
export function OperatorSandboxPage() {
  const admin = useAdmin();
  const [filters, setFilters] = useState<{ accountId?: string; channel?: Channel; to?: string }>({});
  const list = useApi(
    async () =>
      (await unwrap(admin.GET('/admin/v1/sandbox/messages', { params: { query: { ...filters, limit: LIMIT } } }))).data
        .messages,
    JSON.stringify(filters),
  );
  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const v = (k: string) => String(f.get(k) ?? '').trim() || undefined;
    setFilters({ accountId: v('accountId'), channel: v('channel') as Channel | undefined, to: v('to') });
  };
  return (
    <Page title="Operator: sandbox">
      <OperatorTabs />
      <Section title="Sandbox deliveries">
        <form className="form-grid" onSubmit={apply} aria-label="Filter sandbox deliveries">
          <div>
            <label htmlFor="sd-account">Account id</label>
            <input id="sd-account" name="accountId" className="mono" />
          </div>
          <div>
            <label htmlFor="sd-channel">Channel</label>
            <select id="sd-channel" name="channel">
              <option value="">Any</option>
              {CHANNELS.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="sd-to">Recipient</label>
            <input id="sd-to" name="to" />
          </div>
          <div className="row">
            <button type="submit" className="primary">
              Apply filters
            </button>
            <button type="button" onClick={list.reload}>
              Refresh
            </button>
          </div>
        </form>
        <ErrorBox error={list.error} />
        {list.data && list.data.length === 0 && <Empty>Nothing delivered yet.</Empty>}
        {list.data && list.data.length > 0 && (
          <TableBox label="Sandbox deliveries">
            <thead>
              <tr>
                <th scope="col">Delivered</th>
                <th scope="col">Channel</th>
                <th scope="col">To</th>
                <th scope="col">Sender</th>
                <th scope="col">Text</th>
                <th scope="col">Account</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    <When at={d.deliveredAt} />
                  </td>
                  <td>{d.channel}</td>
                  <td className="mono">{d.to}</td>
                  <td>{d.sender ?? '-'}</td>
                  <td className="wrap">
                    {d.subject ? `${d.subject}: ` : ''}
                    {d.text ?? '-'}
                  </td>
                  <td className="mono small">{d.accountId}</td>
                  <td className="mono small">{d.messageId}</td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        )}
        <p className="muted small">The newest {LIMIT} deliveries matching the filters.</p>
      </Section>
      <Faults />
    </Page>
  );
}
