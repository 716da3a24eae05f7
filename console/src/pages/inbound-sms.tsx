import { useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { When } from '../components/status';

/** `datetime-local` value (local time) -> ISO 8601, or undefined when empty. */
const toIso = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);

/** SMS sent to the account's sender names (GET /api/v2/sms/inbound): filters, parts, paging. */
export function InboundSmsPage() {
  const client = useClient();
  const [sender, setSender] = useState('');
  const [from, setFrom] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const filters = `${sender}|${from}|${since}|${until}`;
  const pager = useCursor(filters);
  const list = useApi(
    async () =>
      (
        await unwrap(
          client.GET('/api/v2/sms/inbound', {
            params: {
              query: {
                sender: sender.trim() || undefined,
                from: from.trim() || undefined,
                since: toIso(since),
                until: toIso(until),
                limit: 20,
                cursor: pager.cursor,
              },
            },
          }),
        )
      ).data,
    `${filters}|${pager.cursor}`,
  );
  return (
    <Page title="Inbound SMS">
      <Section title="Received">
        <div className="row">
          <span className="pair">
            <label htmlFor="in-sender">Sender name</label>
            <input id="in-sender" value={sender} maxLength={11} onChange={(e) => setSender(e.target.value)} />
          </span>
          <span className="pair">
            <label htmlFor="in-from">From</label>
            <input id="in-from" value={from} placeholder="+9665..." onChange={(e) => setFrom(e.target.value)} />
          </span>
          <span className="pair">
            <label htmlFor="in-since">Since</label>
            <input id="in-since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
          </span>
          <span className="pair">
            <label htmlFor="in-until">Until</label>
            <input id="in-until" type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
          </span>
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </div>
        <ErrorBox error={list.error} />
        {list.data && list.data.inboundSms.length === 0 && <Empty>No inbound SMS.</Empty>}
        {list.data && list.data.inboundSms.length > 0 && (
          <TableBox label="Inbound SMS">
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Text</th>
                <th scope="col">Parts</th>
              </tr>
            </thead>
            <tbody>
              {list.data.inboundSms.map((s) => (
                <tr key={s.id}>
                  <td>
                    <When at={s.receivedAt} />
                  </td>
                  <td className="mono">{s.from}</td>
                  <td>{s.to}</td>
                  <td dir="auto">{s.text}</td>
                  <td>
                    {s.partsTotal === 1
                      ? '-'
                      : `${s.partsReceived} of ${s.partsTotal}${s.complete ? '' : ' (incomplete)'}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        )}
        <Pager pager={pager} nextCursor={list.data?.nextCursor} label="Inbound SMS" />
      </Section>
    </Page>
  );
}
