import { INestApplication, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ShutdownCoordinator } from './shutdown-coordinator';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
/** After the grace period, how long closing the database, Redis and providers may take before we give up. */
const CLOSE_MARGIN_MS = 5000;

/**
 * SIGTERM / SIGINT: the coordinated drain, then Nest's hooks (providers, database, Redis), then exit 0
 * (1 when work was still in flight at the end of the grace period, or closing failed). Used instead of
 * Nest's enableShutdownHooks, which re-raises the signal after closing, so the process would end by
 * the signal rather than with an exit code. A second signal while draining is ignored: npm and the
 * terminal both deliver Ctrl-C, and the drain is already bounded.
 */
export function exitOnShutdownSignal(app: INestApplication): void {
  const logger = new Logger('Shutdown');
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) {
      logger.log(`${signal} received again: already shutting down`);
      return;
    }
    started = true;
    const coordinator = app.get(ShutdownCoordinator);
    const grace = app.get(AppConfig).shutdown.graceMs;
    // Never outlive the orchestrator's patience silently: whatever hangs, the process ends.
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, grace + CLOSE_MARGIN_MS).unref();
    void (async () => {
      let clean = false;
      try {
        clean = await coordinator.shutdown(signal);
        await app.close();
      } catch (err) {
        logger.error({ err }, 'shutdown failed');
        clean = false;
      }
      process.exit(clean ? 0 : 1);
    })();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
}
