import type { DemoAccount } from './accounts/demo-account.bootstrap';

export interface StartupFacts {
  /** Where the service answers (the bound address when PORT=0). */
  url: string;
  database: string;
  adminEnabled: boolean;
  /** DOCS_ENABLED: the OpenAPI documents are served (off by default in production). */
  docsEnabled?: boolean;
  /** The demo account created by this start, if any. */
  demo: DemoAccount | null;
  /** The key file of an earlier start's demo account, if it is still there. */
  earlierDemoKeyFile: string | null;
}

/**
 * What `npm start` prints once it listens, as lines. The demo key comes last, so it is what the
 * terminal shows. Commands are meant to be pasted into a POSIX shell: `$ADMIN_TOKEN` sits in double
 * quotes so the shell expands it (single quotes sent the literal text and got a 401).
 */
export function startupBanner(f: StartupFacts): string[] {
  const docs =
    f.docsEnabled === false
      ? 'OpenAPI documents are off (DOCS_ENABLED=false, the default in production); the committed ones are in openapi/'
      : `OpenAPI: ${f.url}/docs (JSON: ${f.url}/docs-json); operator API: ${f.url}/docs/admin`;
  const lines = [
    `Messaging service listening on ${f.url} (database: ${f.database})`,
    docs,
    `Developer console: ${f.url}/console (sign in with an API key)`,
  ];
  const admin = `curl -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json'`;
  const enable = f.adminEnabled
    ? 'export ADMIN_TOKEN=<the value this server was started with>, then'
    : 'start the server with ADMIN_TOKEN=<16+ characters> (enables the admin API), export the same ADMIN_TOKEN in your shell, then';
  if (f.demo) {
    lines.push(
      `More keys for the demo account: ${enable}`,
      `  ${admin} -d '{"role":"owner"}' ${f.url}/admin/v1/accounts/${f.demo.accountId}/api-keys`,
      `Demo account ${f.demo.accountId} created. Its owner API key (shown once${f.demo.keyFile ? `; also saved to ${f.demo.keyFile}, mode 0600` : ''}):`,
      `  ${f.demo.key}`,
      `Try it: curl -H "X-API-Key: ${f.demo.key}" ${f.url}/api/v2/account`,
    );
    return lines;
  }
  lines.push(
    `Create an account and its owner key: ${enable}`,
    `  ${admin} -d '{"name":"Acme"}' ${f.url}/admin/v1/accounts`,
  );
  if (f.earlierDemoKeyFile) {
    lines.push(
      `Demo account key: in ${f.earlierDemoKeyFile}`,
      `Try it: curl -H "X-API-Key: $(cat ${f.earlierDemoKeyFile})" ${f.url}/api/v2/account`,
    );
  }
  return lines;
}
