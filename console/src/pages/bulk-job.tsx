import { useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useJobStream } from '../api/job-stream';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When } from '../components/status';
import { saveBlob } from '../lib/download';
import { Link } from '../router';

type Job = Schemas['BulkJobResource'];
const ROW_FILTERS = ['pending', 'sent', 'failed', 'cancelled', 'invalid'] as const;

function Progress({ job }: { job: Job }) {
  const done = job.counts.sent + job.counts.failed + job.counts.cancelled;
  const validating = job.status === 'validating' || job.status === 'accepting';
  const value = validating ? job.validatedCount : done;
  return (
    <div className="stack">
      <label htmlFor="job-progress">
        {validating ? `Validated ${job.validatedCount} of ${job.total} rows` : `Processed ${done} of ${job.total} rows`}
      </label>
      <progress id="job-progress" max={Math.max(job.total, 1)} value={value} />
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd data-testid="job-status">
            <Status value={job.status} />
            {job.pauseReason && <span className="dd-note">{job.pauseReason}</span>}
          </dd>
        </div>
        <div>
          <dt>Sent</dt>
          <dd data-testid="count-sent">{job.counts.sent}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd data-testid="count-failed">{job.counts.failed}</dd>
        </div>
        <div>
          <dt>Pending</dt>
          <dd data-testid="count-pending">{job.counts.pending}</dd>
        </div>
        <div>
          <dt>Cancelled</dt>
          <dd>{job.counts.cancelled}</dd>
        </div>
        <div>
          <dt>Per second</dt>
          <dd>{job.messagesPerSecond}</dd>
        </div>
      </dl>
      <h3 className="small">Delivery receipts</h3>
      <dl className="facts" aria-label="Delivery receipts">
        <div>
          <dt>Delivered</dt>
          <dd data-testid="count-delivered">{job.delivery.delivered}</dd>
        </div>
        <div>
          <dt>Read</dt>
          <dd data-testid="count-read">{job.delivery.read}</dd>
        </div>
        <div>
          <dt>Undelivered</dt>
          <dd data-testid="count-undelivered">{job.delivery.undelivered}</dd>
        </div>
      </dl>
      {job.errorCode && (
        <div className="error" role="alert">
          <strong>{job.errorCode}</strong>: {job.errorMessage}
        </div>
      )}
    </div>
  );
}

function Rows({ jobId, version }: { jobId: string; version: string }) {
  const client = useClient();
  const [status, setStatus] = useState<(typeof ROW_FILTERS)[number] | ''>('');
  const pager = useCursor(status);
  const rows = useApi(
    async () =>
      (
        await unwrap(
          client.GET('/api/v2/messages/bulk/{jobId}/rows', {
            params: { path: { jobId }, query: { status: status || undefined, cursor: pager.cursor, limit: 50 } },
          }),
        )
      ).data,
    `${jobId}|${status}|${pager.cursor}|${version}`,
  );
  return (
    <Section title="Row report">
      <div className="row">
        <span className="pair">
          <label htmlFor="row-status">Rows with status</label>
          <select id="row-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="">Any</option>
            {ROW_FILTERS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </span>
      </div>
      <ErrorBox error={rows.error} />
      {rows.data && rows.data.rows.length === 0 && <Empty>No rows.</Empty>}
      {rows.data && rows.data.rows.length > 0 && (
        <TableBox label="Rows">
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">To</th>
              <th scope="col">Channel</th>
              <th scope="col">Status</th>
              <th scope="col">Message</th>
              <th scope="col">Error</th>
              <th scope="col">Sent</th>
              <th scope="col">Delivery</th>
            </tr>
          </thead>
          <tbody>
            {rows.data.rows.map((r) => (
              <tr key={r.index}>
                <td>{r.index + 1}</td>
                <td className="mono">{r.to}</td>
                <td>{r.channel}</td>
                <td>
                  <Status value={r.status} />
                </td>
                <td>
                  {r.messageId ? (
                    <Link to={`/messages/${encodeURIComponent(r.messageId)}`} className="mono">
                      {r.messageId}
                    </Link>
                  ) : (
                    '-'
                  )}
                </td>
                <td className="wrap">{r.errorCode ? `${r.errorCode}: ${r.errorMessage ?? ''}` : '-'}</td>
                <td>
                  <When at={r.sentAt} />
                </td>
                <td>{r.deliveryStatus ? <Status value={r.deliveryStatus} /> : '-'}</td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
      <Pager pager={pager} nextCursor={rows.data?.nextCursor} label="Rows" />
    </Section>
  );
}

/** One job: live progress (the job's event stream until it settles), controls, rows and CSV export. */
export function BulkJobPage({ id }: { id: string }) {
  const client = useClient();
  // The server sends the job at once and on every change; a cancelled job's stream ends only once the
  // window it had claimed is settled (nothing pending).
  const stream = useJobStream(id);
  const j = stream.job;
  const live = stream.live;
  const path = { params: { path: { jobId: id } } };
  const act = useAction(async (what: 'pause' | 'resume' | 'cancel' | 'retry-failed') => {
    if (what === 'retry-failed') await unwrap(client.POST('/api/v2/messages/bulk/{jobId}/retry-failed', path));
    else if (what === 'pause') await unwrap(client.POST('/api/v2/messages/bulk/{jobId}/pause', path));
    else if (what === 'resume') await unwrap(client.POST('/api/v2/messages/bulk/{jobId}/resume', path));
    else await unwrap(client.POST('/api/v2/messages/bulk/{jobId}/cancel', path));
    // An open stream shows the change by itself; a settled job's stream has ended (a retry revives the job).
    if (!stream.live) stream.restart();
  });
  // Fetched with the key (a plain link could not send it), then saved from a blob: URL.
  const exportCsv = useAction(async () => {
    const csv = await unwrap(
      client.GET('/api/v2/messages/bulk/{jobId}/rows.csv', { params: { path: { jobId: id } }, parseAs: 'blob' }),
    );
    saveBlob(csv, `${id}-rows.csv`);
  });
  const can = (s: string[]) => !!j && s.includes(j.status) && !act.busy;
  return (
    <Page title={j ? `Bulk job: ${j.name || j.id}` : 'Bulk job'} actions={<Link to="/bulk">All jobs</Link>}>
      <ErrorBox error={stream.error} />
      {j && (
        <>
          <Section title="Progress">
            <Progress job={j} />
            <p className="muted small">
              Job <code>{j.id}</code>, created <When at={j.createdAt} />.{' '}
              {live ? 'Live: updates as the job changes.' : ''}
            </p>
            <div className="row" role="group" aria-label="Job controls">
              <button type="button" onClick={() => void act.run('pause')} disabled={!can(['queued', 'running'])}>
                Pause
              </button>
              <button type="button" onClick={() => void act.run('resume')} disabled={!can(['paused'])}>
                Resume
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => void act.run('cancel')}
                disabled={!can(['validating', 'queued', 'running', 'paused'])}
              >
                Cancel job
              </button>
              <button
                type="button"
                onClick={() => void act.run('retry-failed')}
                disabled={!j.counts.failed || act.busy}
              >
                Retry failed rows
              </button>
              <button type="button" onClick={() => void exportCsv.run()} disabled={exportCsv.busy}>
                Export rows (CSV)
              </button>
            </div>
            <ErrorBox error={act.error} />
            <ErrorBox error={exportCsv.error} />
          </Section>
          <Rows jobId={id} version={`${j.status}|${j.counts.sent}|${j.counts.failed}|${j.counts.cancelled}`} />
          <p>
            <Link to={`/messages?bulkJobId=${encodeURIComponent(id)}`}>Messages of this job</Link>
          </p>
        </>
      )}
    </Page>
  );
}
