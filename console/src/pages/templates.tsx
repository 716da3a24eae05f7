import { useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Page, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { Status, When } from '../components/status';
import { sameOriginPath } from '../lib/same-origin';
import { CreateTemplateForm } from './template-create';

const CATEGORIES = ['chatapp', 'sms', 'message', 'email'] as const;
const STATUSES = ['pending', 'approved', 'rejected', 'active'] as const;

/** Templates of the account (and the operator's defaults): list with status, and the create form. */
export function TemplatesPage() {
  const client = useClient();
  const [category, setCategory] = useState<(typeof CATEGORIES)[number] | ''>('');
  const [status, setStatus] = useState<(typeof STATUSES)[number] | ''>('');
  const [version, setVersion] = useState(0);
  const pager = useCursor(`${category}|${status}|${version}`);
  const list = useApi(
    async () =>
      (
        await unwrap(
          client.GET('/api/v2/templates', {
            params: {
              query: { category: category || undefined, status: status || undefined, limit: 20, cursor: pager.cursor },
            },
          }),
        )
      ).data,
    `${category}|${status}|${pager.cursor}|${version}`,
  );
  return (
    <Page title="Templates">
      <Section title="Your templates">
        <div className="row">
          <span className="pair">
            <label htmlFor="t-category">Category</label>
            <select id="t-category" value={category} onChange={(e) => setCategory(e.target.value as typeof category)}>
              <option value="">Any</option>
              {CATEGORIES.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </span>
          <span className="pair">
            <label htmlFor="t-status">Status</label>
            <select id="t-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </span>
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </div>
        <ErrorBox error={list.error} />
        {list.data && list.data.templates.length === 0 && <Empty>No templates.</Empty>}
        {list.data && list.data.templates.length > 0 && (
          <TableBox label="Templates">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Category</th>
                <th scope="col">Status</th>
                <th scope="col">Provider</th>
                <th scope="col">Language</th>
                <th scope="col">Header</th>
                <th scope="col">Id</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.templates.map((t) => {
                const preview = t.headerType === 'image' ? sameOriginPath(t.headerPreviewUrl) : null;
                return (
                  <tr key={t.id}>
                    <td>
                      {t.name}
                      {t.isDefault && <span className="muted small"> (default)</span>}
                    </td>
                    <td>
                      {t.category} / {t.subType}
                    </td>
                    <td>
                      <Status value={t.status} />
                    </td>
                    <td>{t.provider ?? '-'}</td>
                    <td>{t.language ?? '-'}</td>
                    <td>
                      {preview ? (
                        <img src={preview} alt={`Header of ${t.name}`} className="thumb" />
                      ) : (
                        (t.headerType ?? '-')
                      )}
                    </td>
                    <td className="mono small">{t.id}</td>
                    <td>
                      <When at={t.createdAt} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </TableBox>
        )}
        <Pager pager={pager} nextCursor={list.data?.nextCursor} label="Templates" />
      </Section>
      <CreateTemplateForm onCreated={() => setVersion((v) => v + 1)} />
    </Page>
  );
}
