import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { DemoAccountBootstrap } from './accounts/demo-account.bootstrap';

async function main(): Promise<void> {
  // Validate configuration before anything else, so a bad value stops start-up with its name.
  try {
    loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const { createApp } = await import('./bootstrap');
  const app = await createApp();
  const config = app.get(AppConfig);
  await app.listen(config.port, config.host);
  const url = config.publicBaseUrl;
  const demoKey = app.get(DemoAccountBootstrap).createdKey;
  const lines = [
    `Messaging service listening on ${url} (database: ${config.database.type})`,
    config.docsEnabled ? `OpenAPI: ${url}/docs (JSON: ${url}/docs-json)` : 'OpenAPI docs are off (DOCS_ENABLED=false; the default in production)',
    demoKey
      ? `Demo account created. Its owner API key (shown once, keep it): ${demoKey}\n  try: curl -H 'X-API-Key: ${demoKey}' ${url}/api/v2/account`
      : config.adminToken
        ? `Create an account and key: curl -X POST -H 'Authorization: Bearer $ADMIN_TOKEN' -H 'Content-Type: application/json' -d '{"name":"Acme"}' ${url}/admin/v1/accounts`
        : 'Set ADMIN_TOKEN to enable the admin API (/admin/v1) for creating accounts and API keys.',
  ];
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
