import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, TestApp } from '../support/app';
import { typecheckDefaultClients } from '../support/default-client';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const committed = (name: string) => JSON.parse(readFileSync(join(root, 'openapi', name), 'utf8')) as OpenApiDoc;

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }> }>;
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  servers?: { url: string }[];
  info: { license?: unknown; contact?: unknown };
}

function operations(doc: OpenApiDoc): [string, OpenApiOperation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, OpenApiOperation]),
  );
}

describe('OpenAPI documents (contract)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: 'http://localhost:3000', DOCS_ENABLED: 'true' } });
  });
  afterAll(() => t.close());

  it.each([
    ['/docs-json', 'public.json'],
    ['/docs/admin-json', 'admin.json'],
  ])(
    '%s serves exactly the committed openapi/%s (run `npm run openapi:write` after a contract change)',
    async (route, file) => {
      const res = await t.http().get(route);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(committed(file));
    },
  );

  it('the public document has only /api routes; the operator document has none of them', () => {
    expect(Object.keys(committed('public.json').paths).every((p) => p.startsWith('/api/v2/'))).toBe(true);
    expect(Object.keys(committed('admin.json').paths).some((p) => p.startsWith('/api/'))).toBe(false);
    expect(Object.keys(committed('admin.json').paths).some((p) => p.startsWith('/admin/v1/'))).toBe(true);
  });

  it.each(['public.json', 'admin.json'])('every operation of %s is fully described', (file) => {
    const doc = committed(file);
    expect(doc.servers?.[0]?.url).toBe('http://localhost:3000');
    expect(doc.info.license).toBeDefined();
    expect(doc.info.contact).toBeDefined();
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const [name, op] of operations(doc)) {
      if (!op.operationId || !/^[a-z][a-zA-Z0-9]+$/.test(op.operationId))
        problems.push(`${name}: operationId ${op.operationId} is not camelCase`);
      if (op.operationId && ids.has(op.operationId)) problems.push(`${name}: duplicate operationId`);
      ids.add(op.operationId ?? '');
      if (!op.summary) problems.push(`${name}: no summary`);
      if (!op.tags?.length) problems.push(`${name}: no tag`);
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (schemes.includes('apiKey'))
        for (const s of ['401', '403', '429']) if (!op.responses[s]) problems.push(`${name}: ${s} not listed`);
      for (const [status, r] of Object.entries(op.responses)) {
        const json = r.content?.['application/json'];
        const ok = status.startsWith('2');
        if (!r.content && !(ok && name.startsWith('GET /health'))) problems.push(`${name} ${status}: no body schema`);
        if (json && !json.schema) problems.push(`${name} ${status}: no schema`);
        if (json && json.example === undefined) problems.push(`${name} ${status}: no example`);
        if (!ok && json && !JSON.stringify(json.schema).includes('"enum"'))
          problems.push(`${name} ${status}: error code is not an enum`);
      }
      if (!Object.keys(op.responses).some((s) => s.startsWith('2'))) problems.push(`${name}: no success response`);
    }
    expect(problems).toEqual([]);
  });

  it("both documents pass Redocly's recommended rules with 0 errors", async () => {
    const { stdout } = await run(process.execPath, [join(root, 'scripts', 'openapi-lint.mjs')], { cwd: root });
    expect(stdout).toMatch(/public\.json: 0 errors/);
    expect(stdout).toMatch(/admin\.json: 0 errors/);
  });

  it('the committed typed client (clients/typescript) is generated from the committed public document', async () => {
    const { stdout } = await run(process.execPath, [join(root, 'scripts', 'openapi-client.mjs'), '--check'], {
      cwd: root,
    });
    expect(stdout).toMatch(/matches/);
  });

  it("a client generated from /docs-json with openapi-typescript's default options lets every call leave out what is not required", async () => {
    const docs = {
      publicApi: (await t.http().get('/docs-json')).body as unknown,
      operatorApi: (await t.http().get('/docs/admin-json')).body as unknown,
    };
    // Each body with defaulted fields, sent with its required fields only.
    const calls = `
      const api = createClient<publicApi.paths>({ baseUrl: 'http://localhost:3000' });
      void api.POST('/api/v2/verification/send', { body: { to: '+966501234568', channel: 'local_sms' } });
      void api.POST('/api/v2/sms-senders', { body: { name: 'TypedCo' } });
      void api.POST('/api/v2/suppressions', { body: { entries: [{ recipient: '+966501239999' }] } });
      // @ts-expect-error: a required field is still required (the check is not vacuous).
      void api.POST('/api/v2/verification/send', { body: { to: '+966501234568' } });
      const operator = createClient<operatorApi.paths>({ baseUrl: 'http://localhost:3000' });
      void operator.POST('/admin/v1/accounts/{id}/web-sessions', {
        params: { path: { id: 'acc_1' } },
        body: { name: 'sales-line', status: 'ready' },
      });
      void operator.POST('/admin/v1/sandbox/official-templates', { body: { name: 'order_update', language: 'en' } });
    `;
    expect(typecheckDefaultClients(docs, calls)).toEqual([]);
  });
});
