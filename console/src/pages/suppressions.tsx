import { FormEvent, useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { When } from '../components/status';
import { SuppressionsCsv } from './suppressions-csv';

type Entry = Schemas['Suppression'];
export type Channel = Entry['channel'];
export type Reason = Entry['reason'];
export interface SuppressionFilters {
  recipient?: string;
  channel?: Channel;
  reason?: Reason;
}

export const CHANNELS: Channel[] = ['all', 'local_sms', 'chatapp', 'chatapp_web', 'messaging_bot', 'email'];
const REASONS: Reason[] = ['keyword', 'api', 'console', 'import', 'dnd', 'bounce'];

/** The account's suppression list (opt-outs): filters, cursor pages, add, remove, CSV import and export. */
export function SuppressionsPage() {
  const client = useClient();
  const [recipient, setRecipient] = useState('');
  const [channel, setChannel] = useState<Channel | ''>('');
  const [reason, setReason] = useState<Reason | ''>('');
  const filters: SuppressionFilters = {
    recipient: recipient.trim() || undefined,
    channel: channel || undefined,
    reason: reason || undefined,
  };
  const filterKey = `${recipient}|${channel}|${reason}`;
  const pager = useCursor(filterKey);
  const list = useApi(
    async () =>
      (
        await unwrap(
          client.GET('/api/v2/suppressions', { params: { query: { ...filters, limit: 20, cursor: pager.cursor } } }),
        )
      ).data,
    `${filterKey}|${pager.cursor}`,
  );
  const add = useAction(async (entry: Schemas['SuppressionEntryInput']) => {
    await unwrap(client.POST('/api/v2/suppressions', { body: { entries: [{ ...entry, reason: 'console' }] } }));
    list.reload();
    return true;
  });
  // One entry: the recipient's entry of this channel key only.
  const remove = useAction(async (recipient: string, channel: Channel) => {
    await unwrap(
      client.DELETE('/api/v2/suppressions/{recipient}', { params: { path: { recipient }, query: { channel } } }),
    );
    list.reload();
  });

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const entry: Schemas['SuppressionEntryInput'] = {
      recipient: String(f.get('recipient') ?? '').trim(),
      channel: String(f.get('channel')) as Channel,
      scope: String(f.get('scope')) as Schemas['SuppressionEntryInput']['scope'],
    };
    if (await add.run(entry)) form.reset();
  };
  const forbidden = list.error?.status === 403;

  return (
    <Page title="Suppressions">
      <Section title="Add a recipient">
        <p className="muted small">
          Messages to a suppressed recipient are refused (<code>RECIPIENT_OPTED_OUT</code>): marketing messages for
          scope <code>marketing</code>, every message (verification codes too) for scope <code>all</code>.
        </p>
        <form className="stack" onSubmit={(e) => void submit(e)} aria-label="Add a recipient">
          <div className="form-grid">
            <div>
              <label htmlFor="sup-add-recipient">Recipient (phone or email)</label>
              <input id="sup-add-recipient" name="recipient" required maxLength={320} placeholder="+9665..." />
            </div>
            <div>
              <label htmlFor="sup-add-channel">Channel</label>
              <select id="sup-add-channel" name="channel" defaultValue="all">
                {CHANNELS.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor="sup-add-scope">Scope</label>
              <select id="sup-add-scope" name="scope" defaultValue="marketing">
                <option value="marketing">marketing</option>
                <option value="all">all messages</option>
              </select>
            </div>
          </div>
          <ErrorBox error={add.error} />
          <div>
            <button type="submit" className="primary" disabled={add.busy}>
              Add to the list
            </button>
          </div>
        </form>
      </Section>
      <Section title="Suppression list">
        <div className="row">
          <span className="pair">
            <label htmlFor="sup-recipient">Recipient</label>
            <input id="sup-recipient" value={recipient} onChange={(e) => setRecipient(e.target.value)} />
          </span>
          <span className="pair">
            <label htmlFor="sup-channel">Channel</label>
            <select id="sup-channel" value={channel} onChange={(e) => setChannel(e.target.value as Channel | '')}>
              <option value="">any</option>
              {CHANNELS.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </span>
          <span className="pair">
            <label htmlFor="sup-reason">Reason</label>
            <select id="sup-reason" value={reason} onChange={(e) => setReason(e.target.value as Reason | '')}>
              <option value="">any</option>
              {REASONS.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </span>
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </div>
        {forbidden && (
          <Empty>This API key cannot read the suppression list: it needs the messages:read permission.</Empty>
        )}
        <ErrorBox error={list.error} />
        <ErrorBox error={remove.error} />
        {list.data && list.data.suppressions.length === 0 && <Empty>No suppressed recipients.</Empty>}
        {list.data && list.data.suppressions.length > 0 && (
          <TableBox label="Suppressed recipients">
            <thead>
              <tr>
                <th scope="col">Recipient</th>
                <th scope="col">Channel</th>
                <th scope="col">Scope</th>
                <th scope="col">Reason</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.suppressions.map((e) => (
                <EntryRow key={e.id} entry={e} busy={remove.busy} onRemove={(r) => void remove.run(r, e.channel)} />
              ))}
            </tbody>
          </TableBox>
        )}
        <Pager pager={pager} nextCursor={list.data?.nextCursor} label="Suppressions" />
      </Section>
      <SuppressionsCsv filters={filters} onImported={list.reload} />
    </Page>
  );
}

function EntryRow({ entry: e, busy, onRemove }: { entry: Entry; busy: boolean; onRemove(recipient: string): void }) {
  const recipient = e.recipient;
  return (
    <tr>
      <td className="mono">{recipient ?? <span className="muted">(erased)</span>}</td>
      <td>{e.channel}</td>
      <td>{e.scope}</td>
      <td>{e.reason}</td>
      <td>
        <When at={e.createdAt} />
      </td>
      <td>
        {/* An erased entry has no recipient to address it by: it stays enforced. */}
        {recipient !== null && (
          <button
            type="button"
            className="danger"
            disabled={busy}
            aria-label={`Remove ${recipient} (${e.channel})`}
            onClick={() => onRemove(recipient)}
          >
            Remove
          </button>
        )}
      </td>
    </tr>
  );
}
