// Writes the committed contract: openapi/public.json and openapi/admin.json, generated from the code
// exactly as the service serves them (default PUBLIC_BASE_URL). Run `npm run openapi:write` after any
// change to a route, DTO, response class or error code; `test/contract` fails until you do.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const OPENAPI_DIR = join(__dirname, '..', 'openapi');

/** Environment the documents are generated under: no listener, no loops, a throwaway database. */
export function documentEnv(): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'openapi-')), 'doc.sqlite')}`,
    SCHEDULERS_ENABLED: 'false',
    DEMO_ACCOUNT: 'false',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://localhost:3000',
    ADMIN_TOKEN: 'openapi-document-token',
    APP_SECRET: 'openapi-document-secret-0123456789',
    DOCS_ENABLED: 'true',
  };
}

export function serialise(doc: unknown): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

async function main(): Promise<void> {
  Object.assign(process.env, documentEnv());
  const { NestFactory } = await import('@nestjs/core');
  const { AppModule } = await import('../src/app.module');
  const { AppConfig } = await import('../src/config/app-config');
  const { buildOpenApiDocuments } = await import('../src/common/openapi');
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.init();
  const docs = buildOpenApiDocuments(app, app.get(AppConfig).server.publicBaseUrl);
  writeFileSync(join(OPENAPI_DIR, 'public.json'), serialise(docs.public));
  writeFileSync(join(OPENAPI_DIR, 'admin.json'), serialise(docs.operator));
  await app.close();
  console.log(
    `wrote ${Object.keys(docs.public.paths).length} public and ${Object.keys(docs.operator.paths).length} operator paths to openapi/`,
  );
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
