import { FormEvent, useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Empty, Section, TableBox } from '../components/page';
import { Pager, useCursor } from '../components/pager';
import { ShownOnce } from '../components/secret';
import { When } from '../components/status';
import { useActiveKey } from '../session';

const PERMISSIONS = [
  { value: 'messages:create', label: 'messages:create (send, templates, bulk jobs)' },
  { value: 'messages:read', label: 'messages:read (message log, jobs, deliveries)' },
  { value: 'api_keys:read', label: 'api_keys:read (list keys)' },
];

/** API keys: member keys with chosen permissions (shown once), the list, revoke. */
export function ApiKeysPanel() {
  const client = useClient();
  const signedIn = useActiveKey() ?? '';
  const [version, setVersion] = useState(0);
  const pager = useCursor(`${version}`);
  const list = useApi(
    async () =>
      (await unwrap(client.GET('/api/v2/api-keys', { params: { query: { cursor: pager.cursor, limit: 20 } } }))).data,
    `${pager.cursor}|${version}`,
  );
  const create = useAction(
    async (body: Schemas['CreateApiKeyRequest']) =>
      (await unwrap(client.POST('/api/v2/api-keys', { body }))).data.apiKey,
  );
  const revoke = useAction(async (id: string) => {
    await unwrap(client.DELETE('/api/v2/api-keys/{id}', { params: { path: { id } } }));
    setVersion((v) => v + 1);
  });
  const [shown, setShown] = useState<string | null>(null);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const permissions = f.getAll('permissions').map(String) as Schemas['CreateApiKeyRequest']['permissions'];
    const created = await create.run({ name: String(f.get('name') ?? '').trim(), permissions });
    if (created) {
      setShown(created.key);
      form.reset();
      setVersion((v) => v + 1);
    }
  };

  return (
    <Section title="API keys" id="api-keys">
      <form className="stack" onSubmit={(e) => void submit(e)} aria-label="Create an API key">
        <div className="form-grid">
          <div>
            <label htmlFor="key-name">Key name</label>
            <input id="key-name" name="name" required maxLength={100} placeholder="Billing server" />
          </div>
        </div>
        <fieldset>
          <legend>Permissions</legend>
          <div className="checks">
            {PERMISSIONS.map((p) => (
              <label key={p.value}>
                <input
                  type="checkbox"
                  name="permissions"
                  value={p.value}
                  defaultChecked={p.value !== 'api_keys:read'}
                />{' '}
                {p.label}
              </label>
            ))}
          </div>
        </fieldset>
        <ErrorBox error={create.error} />
        <div>
          <button type="submit" className="primary" disabled={create.busy}>
            Create member key
          </button>
        </div>
      </form>
      {shown && <ShownOnce label="New API key" value={shown} onDone={() => setShown(null)} />}
      <ErrorBox error={list.error ?? revoke.error} />
      {list.data && list.data.apiKeys.length === 0 && <Empty>No keys.</Empty>}
      {list.data && list.data.apiKeys.length > 0 && (
        <TableBox label="API keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Permissions</th>
              <th scope="col">
                <span className="sr-only">Revoke</span>
              </th>
              <th scope="col">Key</th>
              <th scope="col">Role</th>
              <th scope="col">Mode</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
            </tr>
          </thead>
          <tbody>
            {list.data.apiKeys.map((k) => {
              // The API shows the first characters of a key as its prefix: enough to tell the signed-in key.
              const self = signedIn.startsWith(k.prefix);
              return (
                <tr key={k.id}>
                  <td>
                    {k.name}
                    {self && <span className="muted small"> (this session)</span>}
                  </td>
                  <td className="wrap small">{k.role === 'owner' ? 'all' : k.permissions.join(', ')}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => void revoke.run(k.id)}
                      disabled={self || revoke.busy}
                      aria-label={`Revoke ${k.name}`}
                    >
                      Revoke
                    </button>
                  </td>
                  <td className="mono">{k.prefix}...</td>
                  <td>{k.role}</td>
                  <td>{k.mode}</td>
                  <td>
                    <When at={k.createdAt} />
                  </td>
                  <td>
                    <When at={k.lastUsedAt} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </TableBox>
      )}
      <Pager pager={pager} nextCursor={list.data?.nextCursor} label="API keys" />
    </Section>
  );
}
