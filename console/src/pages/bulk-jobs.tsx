import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Page, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When } from '../components/status';
import { Link } from '../router';

export function BulkJobsPage() {
  const client = useClient();
  const pager = useCursor('jobs');
  const jobs = useApi(
    async () =>
      (await unwrap(client.GET('/api/v2/messages/bulk', { params: { query: { limit: 20, cursor: pager.cursor } } })))
        .data,
    `${pager.cursor}`,
  );
  return (
    <Page
      title="Bulk jobs"
      actions={
        <>
          <button type="button" onClick={jobs.reload}>
            Refresh
          </button>
          <Link to="/bulk/new" className="button-link primary">
            New job from CSV
          </Link>
        </>
      }
    >
      <ErrorBox error={jobs.error} />
      {jobs.data && jobs.data.jobs.length === 0 && <Empty>No bulk jobs yet.</Empty>}
      {jobs.data && jobs.data.jobs.length > 0 && (
        <TableBox label="Bulk jobs">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Status</th>
              <th scope="col">Sent</th>
              <th scope="col">Failed</th>
              <th scope="col">Total</th>
              <th scope="col">Per second</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {jobs.data.jobs.map((j) => (
              <tr key={j.id}>
                <td>
                  <Link to={`/bulk/${encodeURIComponent(j.id)}`}>{j.name || j.id}</Link>
                </td>
                <td>
                  <Status value={j.status} />
                </td>
                <td>{j.counts.sent}</td>
                <td>{j.counts.failed}</td>
                <td>{j.total}</td>
                <td>{j.messagesPerSecond}</td>
                <td>
                  <When at={j.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
      <Pager pager={pager} nextCursor={jobs.data?.nextCursor} label="Bulk jobs" />
    </Page>
  );
}
