import { useState } from 'react';
import { useAdmin } from '../api/context';
import { unwrap } from '../api/failure';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { OperatorTabs } from '../components/operator-tabs';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When } from '../components/status';

const FILTERS = ['pending', 'approved', 'rejected', 'active'] as const;
type Decision = (typeof FILTERS)[number];

/** Operator: the template review queue across accounts (approve, reject with a reason, activate). */
export function OperatorTemplatesPage() {
  const admin = useAdmin();
  const [status, setStatus] = useState<Decision | ''>('pending');
  const [reason, setReason] = useState('');
  const [version, setVersion] = useState(0);
  const pager = useCursor(`${status}|${version}`);
  const list = useApi(
    async () =>
      (
        await unwrap(
          admin.GET('/admin/v1/templates', {
            params: { query: { status: status || undefined, limit: 20, cursor: pager.cursor } },
          }),
        )
      ).data,
    `${status}|${pager.cursor}|${version}`,
  );
  const decide = useAction(async (id: string, to: Decision) => {
    const res = await unwrap(
      admin.POST('/admin/v1/templates/{id}/status', {
        params: { path: { id } },
        body: { status: to, reason: to === 'rejected' ? reason.trim() || undefined : undefined },
      }),
    );
    setReason('');
    setVersion((v) => v + 1);
    return res.data.template;
  });
  return (
    <Page title="Operator: template review">
      <OperatorTabs />
      <Section title="Templates">
        <div className="row">
          <span className="pair">
            <label htmlFor="ot-status">Status</label>
            <select id="ot-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              <option value="">Any</option>
              {FILTERS.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </span>
          <span className="pair grow">
            <label htmlFor="ot-reason">Rejection reason</label>
            <input id="ot-reason" value={reason} onChange={(e) => setReason(e.target.value)} />
          </span>
        </div>
        <ErrorBox error={list.error ?? decide.error} />
        {decide.result && (
          <p className="notice" role="status">
            {decide.result.name} is now <Status value={decide.result.status} />.
          </p>
        )}
        {list.data && list.data.templates.length === 0 && <Empty>No templates with this status.</Empty>}
        {list.data && list.data.templates.length > 0 && (
          <TableBox label="Templates to review">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Decision</span>
                </th>
                <th scope="col">Category</th>
                <th scope="col">Text</th>
                <th scope="col">Account</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.templates.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>
                    <Status value={t.status} />
                  </td>
                  <td>
                    <div className="cell-actions">
                      {t.status !== 'approved' && (
                        <button
                          type="button"
                          className="primary"
                          onClick={() => void decide.run(t.id, 'approved')}
                          disabled={decide.busy}
                          aria-label={`Approve ${t.name}`}
                        >
                          Approve
                        </button>
                      )}
                      {t.status !== 'rejected' && (
                        <button
                          type="button"
                          className="danger"
                          onClick={() => void decide.run(t.id, 'rejected')}
                          disabled={decide.busy}
                          aria-label={`Reject ${t.name}`}
                        >
                          Reject
                        </button>
                      )}
                    </div>
                  </td>
                  <td>
                    {t.category} / {t.subType}
                  </td>
                  <td className="wrap small">{t.body ?? t.content ?? '-'}</td>
                  <td className="mono small">{t.accountId ?? 'default'}</td>
                  <td>
                    <When at={t.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        )}
        <Pager pager={pager} nextCursor={list.data?.nextCursor} label="Templates" />
      </Section>
    </Page>
  );
}
