import { AppConfig, ConfigError } from './config/app-config';
import { processConfig } from './config/process-config';
import { DemoAccountBootstrap } from './accounts/demo-account.bootstrap';
import { AppLogger } from './logging/app-logger';
import { startupBanner } from './startup-banner';
import { exitOnShutdownSignal } from './common/shutdown/shutdown-signals';

async function main(): Promise<void> {
  // Read and validate the configuration before anything else, so a bad value (or a missing setting
  // of a selected adapter) stops start-up with its name. The app gets this same instance.
  try {
    processConfig();
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
  exitOnShutdownSignal(app);
  await app.listen(config.server.port, config.server.host);
  const demo = app.get(DemoAccountBootstrap);
  const banner = startupBanner({
    // PORT=0 binds a free port: print the one bound, not ":0".
    url: config.server.port === 0 ? await app.getUrl() : config.server.publicBaseUrl,
    database: config.database.type,
    adminEnabled: config.security.adminToken !== null,
    docsEnabled: config.docs.enabled,
    demo: demo.created,
    earlierDemoKeyFile: demo.created ? null : demo.existingKeyFile(),
  });
  app.get(AppLogger).printAfterLogs(`${banner.join('\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
