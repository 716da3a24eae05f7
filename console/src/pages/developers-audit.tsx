import { useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { When } from '../components/status';

type AuditType = Schemas['AuditEvent']['type'];

// The server's list (src/common/audit/audit-trail.ts), as the generated client types it.
const TYPES: readonly AuditType[] = [
  'api_key.created',
  'api_key.revoked',
  'webhook.settings_changed',
  'webhook.endpoint_created',
  'webhook.endpoint_updated',
  'webhook.endpoint_deleted',
  'sender.default_changed',
  'geo_permissions.changed',
  'privacy.erasure_requested',
  'privacy.erasure_completed',
  'account.balance_changed',
  'account.plan_changed',
  'account.retention_changed',
];

/** Who changed what in the account (owner key), newest first, by type; the change as the API gives it. */
export function AuditLog() {
  const client = useClient();
  const [type, setType] = useState<AuditType | ''>('');
  const pager = useCursor(type);
  const log = useApi(
    async () =>
      (
        await unwrap(
          client.GET('/api/v2/audit-events', {
            params: { query: { type: type || undefined, cursor: pager.cursor, limit: 20 } },
          }),
        )
      ).data,
    `${type}|${pager.cursor}`,
  );
  return (
    <Section title="Audit log" id="audit">
      <div className="row" role="group" aria-label="Audit filters">
        <span className="pair">
          <label htmlFor="audit-type">Changes of type</label>
          <select id="audit-type" value={type} onChange={(e) => setType(e.target.value as AuditType | '')}>
            <option value="">Any</option>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </span>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <ErrorBox error={log.error} />
      {log.data && log.data.events.length === 0 && <Empty>No changes recorded.</Empty>}
      {log.data && log.data.events.length > 0 && (
        <TableBox label="Audit events">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Change</th>
              <th scope="col">By</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {log.data.events.map((e) => (
              <tr key={e.id}>
                <td>
                  <When at={e.createdAt} />
                </td>
                <td className="mono">{e.type}</td>
                <td className="mono small">{e.actor}</td>
                <td className="mono small">{e.target ?? '-'}</td>
                <td className="wrap mono small" title={e.requestId ?? undefined}>
                  {JSON.stringify(e.changes)}
                </td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
      <Pager pager={pager} nextCursor={log.data?.nextCursor} label="Audit events" />
    </Section>
  );
}
