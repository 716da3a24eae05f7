import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ApiError } from '../errors';
import { loadConfig } from '../../config/app-config';
import { DnsResolver, ResolvedAddress } from './dns-resolver';
import { FetchFailedError, GuardedFetcher } from './guarded-fetcher';
import { refusedTargetText, TargetPolicy, TargetRefusedError } from './target-policy';

/** A resolver that answers from a table, records every question, and can change its mind (rebinding). */
class ScriptedDns implements DnsResolver {
  calls: string[] = [];
  constructor(private readonly answers: Record<string, string[]>) {}
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    this.calls.push(hostname);
    const list = this.answers[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    // First answer for the check; any later lookup of the same name gets the next one.
    const address = list[Math.min(this.calls.filter((h) => h === hostname).length - 1, list.length - 1)];
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  }
}

function fetcherWith(
  dns: DnsResolver,
  env: Record<string, string> = {},
): { sut: GuardedFetcher; policy: TargetPolicy } {
  const policy = new TargetPolicy(loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_INSECURE: 'true', ...env }), dns);
  return { sut: new GuardedFetcher(policy), policy };
}

describe(GuardedFetcher.name, () => {
  let server: Server;
  let port: number;
  const seen: { path: string; host: string }[] = [];
  let handler: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', host: req.headers.host ?? '' });
      handler(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
    handler = (_req, res) => res.end('hello');
  });

  it('resolves once and connects to the checked address; Host stays the name (a second lookup would rebind)', async () => {
    // 127.0.0.2 is loopback too, but nothing listens there: only the pinned first answer can connect.
    const dns = new ScriptedDns({ 'files.test': ['127.0.0.1', '127.0.0.2'] });
    const { sut } = fetcherWith(dns);
    const res = await sut.fetch(`http://files.test:${port}/a.pdf`, { timeoutMs: 2000, maxBytes: 1000 });
    expect(res).toMatchObject({ status: 200, url: `http://files.test:${port}/a.pdf` });
    expect(res.body.toString()).toBe('hello');
    expect(dns.calls).toEqual(['files.test']);
    expect(seen).toEqual([{ path: '/a.pdf', host: `files.test:${port}` }]);
  });

  it('checks and pins every redirect hop the same way (at most 3)', async () => {
    const dns = new ScriptedDns({ 'a.test': ['127.0.0.1'], 'b.test': ['127.0.0.1'] });
    handler = (req, res) => {
      if (req.url === '/start') res.writeHead(302, { Location: `http://b.test:${port}/next` }).end();
      else if (req.url === '/next') res.writeHead(301, { Location: '/final' }).end();
      else res.end('done');
    };
    const res = await fetcherWith(dns).sut.fetch(`http://a.test:${port}/start`, { timeoutMs: 2000, maxBytes: 1000 });
    expect(res.body.toString()).toBe('done');
    expect(res.url).toBe(`http://b.test:${port}/final`);
    expect(dns.calls).toEqual(['a.test', 'b.test', 'b.test']);
    expect(seen.map((s) => s.host)).toEqual([`a.test:${port}`, `b.test:${port}`, `b.test:${port}`]);

    seen.length = 0;
    handler = (_req, res) => res.writeHead(302, { Location: '/again' }).end();
    await expect(
      fetcherWith(dns).sut.fetch(`http://127.0.0.1:${port}/loop`, { timeoutMs: 2000, maxBytes: 1000 }),
    ).rejects.toMatchObject({ kind: 'redirects' });
    expect(seen).toHaveLength(4);
  });

  it.each([`http://user:pw@127.0.0.1:PORT/secret`, 'file:///etc/passwd', 'gopher://127.0.0.1:PORT/x', 'http://[::1'])(
    'a redirect to %s is refused before any request to it',
    async (location) => {
      handler = (req, res) =>
        req.url === '/start'
          ? res.writeHead(302, { Location: location.replace('PORT', String(port)) }).end()
          : res.end('secret');
      await expect(
        fetcherWith(new ScriptedDns({})).sut.fetch(`http://127.0.0.1:${port}/start`, {
          timeoutMs: 2000,
          maxBytes: 1000,
        }),
      ).rejects.toBeInstanceOf(TargetRefusedError);
      expect(seen.map((s) => s.path)).toEqual(['/start']);
    },
  );

  it('strict mode: a name resolving inside and a name not resolving are both refused, with no request and one text', async () => {
    const dns = new ScriptedDns({
      'inside.test': ['10.1.2.3'],
      'mapped.test': ['::ffff:127.0.0.1'],
      'public.test': ['93.184.215.14'],
    });
    const { sut, policy } = fetcherWith(dns, { WEBHOOK_ALLOW_INSECURE: 'false' });
    for (const url of [
      'https://inside.test/x',
      'https://mapped.test/x',
      'https://nowhere.test/x',
      `https://127.0.0.1:${port}/x`,
      'https://[fec0::1]/x',
    ]) {
      await expect(sut.fetch(url, { timeoutMs: 2000, maxBytes: 1000 })).rejects.toBeInstanceOf(TargetRefusedError);
    }
    expect(seen).toHaveLength(0);
    const texts = await Promise.all(
      ['https://inside.test/x', 'https://nowhere.test/x', 'http://public.test/x', 'https://public.test:8443/x'].map(
        (u) =>
          policy.assertAllowed(u, 'url').then(
            () => 'allowed',
            (e: ApiError) => e.message,
          ),
      ),
    );
    expect(new Set(texts)).toEqual(new Set([refusedTargetText('url')]));
    await expect(policy.assertAllowed('https://PUBLIC.test:443', 'url')).resolves.toBe('https://public.test/');
  });

  it('a body over the cap dropped unread (a webhook POST, an error status) raises nothing', async () => {
    handler = (_req, res) => res.writeHead(404, { 'Content-Length': '5000' }).end('x'.repeat(5000));
    const res = await fetcherWith(new ScriptedDns({})).sut.open(`http://127.0.0.1:${port}/big`, {
      timeoutMs: 2000,
      maxBytes: 1000,
    });
    expect(res.status).toBe(404);
    res.body.destroy();
    // Before: the body was handed over already failed, and its 'error' event had no listener.
    await new Promise((r) => setTimeout(r, 50));
  });

  it('caps the body (declared or streamed) and the time', async () => {
    const { sut } = fetcherWith(new ScriptedDns({}));
    handler = (_req, res) => res.writeHead(200, { 'Content-Length': '5000' }).end('x'.repeat(5000));
    await expect(sut.fetch(`http://127.0.0.1:${port}/big`, { timeoutMs: 2000, maxBytes: 1000 })).rejects.toMatchObject({
      kind: 'too_large',
    });
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('x'.repeat(800));
      res.end('x'.repeat(800));
    };
    await expect(
      sut.fetch(`http://127.0.0.1:${port}/chunked`, { timeoutMs: 2000, maxBytes: 1000 }),
    ).rejects.toMatchObject({ kind: 'too_large' });
    handler = (_req, res) => res.writeHead(200).write('partial');
    const started = Date.now();
    const err = await sut
      .fetch(`http://127.0.0.1:${port}/hang`, { timeoutMs: 300, maxBytes: 1000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchFailedError);
    expect(err).toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
