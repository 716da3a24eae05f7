import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { DemoAccountBootstrap } from './accounts/demo-account.bootstrap';
import { AppLogger } from './logging/app-logger';
import { startupBanner } from './startup-banner';
import { exitOnShutdownSignal } from './common/shutdown/shutdown-signals';

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
  exitOnShutdownSignal(app);
  await app.listen(config.port, config.host);
  const demo = app.get(DemoAccountBootstrap);
  const banner = startupBanner({
    // PORT=0 binds a free port: print the one bound, not ":0".
    url: config.port === 0 ? await app.getUrl() : config.publicBaseUrl,
    database: config.database.type,
    adminEnabled: config.adminToken !== null,
    docsEnabled: config.docsEnabled,
    demo: demo.created,
    earlierDemoKeyFile: demo.created ? null : demo.existingKeyFile(),
  });
  app.get(AppLogger).printAfterLogs(`${banner.join('\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
