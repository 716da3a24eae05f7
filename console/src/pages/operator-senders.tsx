import { useState } from 'react';
import { useAdmin } from '../api/context';
import { unwrap } from '../api/failure';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { OperatorTabs } from '../components/operator-tabs';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Status, When } from '../components/status';

const FILTERS = ['pending', 'approved', 'rejected'] as const;

/** Operator: review SMS sender names of every account (approve or reject, with a reason). */
export function OperatorSendersPage() {
  const admin = useAdmin();
  const [status, setStatus] = useState<(typeof FILTERS)[number] | ''>('pending');
  const [reason, setReason] = useState('');
  const list = useApi(
    async () =>
      (await unwrap(admin.GET('/admin/v1/sms-senders', { params: { query: { status: status || undefined } } }))).data
        .smsSenders,
    status,
  );
  const review = useAction(async (id: string, decision: 'approve' | 'reject') => {
    const opts = { params: { path: { id } }, body: { reason: reason.trim() || undefined } };
    const res =
      decision === 'approve'
        ? await unwrap(admin.POST('/admin/v1/sms-senders/{id}/approve', opts))
        : await unwrap(admin.POST('/admin/v1/sms-senders/{id}/reject', opts));
    setReason('');
    list.reload();
    return res.data.smsSender;
  });
  return (
    <Page title="Operator: sender review">
      <OperatorTabs />
      <Section title="SMS sender names">
        <div className="row">
          <span className="pair">
            <label htmlFor="os-status">Status</label>
            <select id="os-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              <option value="">Any</option>
              {FILTERS.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </span>
          <span className="pair grow">
            <label htmlFor="os-reason">Reason (optional, sent with the decision)</label>
            <input id="os-reason" value={reason} onChange={(e) => setReason(e.target.value)} />
          </span>
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </div>
        <ErrorBox error={list.error ?? review.error} />
        {review.result && (
          <p className="notice" role="status">
            {review.result.name} is now <Status value={review.result.status} />.
          </p>
        )}
        {list.data && list.data.length === 0 && <Empty>No sender names with this status.</Empty>}
        {list.data && list.data.length > 0 && (
          <TableBox label="Sender names to review">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Decision</span>
                </th>
                <th scope="col">Account</th>
                <th scope="col">Requested</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((s) => (
                <tr key={s.id}>
                  <td>{s.name}</td>
                  <td>
                    <Status value={s.status} />
                  </td>
                  <td>
                    {s.status === 'pending' && (
                      <div className="cell-actions">
                        <button
                          type="button"
                          className="primary"
                          onClick={() => void review.run(s.id, 'approve')}
                          disabled={review.busy}
                          aria-label={`Approve ${s.name}`}
                        >
                          Approve
                        </button>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => void review.run(s.id, 'reject')}
                          disabled={review.busy}
                          aria-label={`Reject ${s.name}`}
                        >
                          Reject
                        </button>
                      </div>
                    )}
                  </td>
                  <td className="mono small">{s.accountId}</td>
                  <td>
                    <When at={s.createdAt} />
                  </td>
                  <td className="wrap">{s.reason ?? '-'}</td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        )}
        <p className="muted small">Lists up to 500 senders, oldest first (the operator API&apos;s limit).</p>
      </Section>
    </Page>
  );
}
