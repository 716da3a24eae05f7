/** Printed on stdout when the probe holds a window transaction open. */
export const WINDOW_TX_OPEN_MARKER = 'BULK_TEST_WINDOW_TX_OPEN';

/**
 * Test-only (BULK_TEST_HOOKS=true, which start-up refuses outside NODE_ENV=test): lets an e2e test
 * freeze a replica while it holds a dispatch window's transaction open, which otherwise happens only
 * by chance. SIGWINCH arms it (a signal
 * nothing else here listens to, ignored by default; Nest's shutdown hooks own SIGUSR2); the next window transaction, right after renewing the lease, prints
 * WINDOW_TX_OPEN_MARKER and the job id and waits for SIGCONT (the test SIGSTOPs the process
 * meanwhile), then goes on as if nothing had happened. Disabled: `hold()` returns undefined and no
 * signal handler is installed.
 */
export class WindowTxProbe {
  private armed = false;

  constructor(enabled: boolean) {
    if (enabled) process.on('SIGWINCH', () => (this.armed = true));
  }

  /** What the window transaction awaits after its first statement, when armed. */
  hold(jobId: string): (() => Promise<void>) | undefined {
    if (!this.armed) return undefined;
    this.armed = false;
    return () =>
      new Promise<void>((resolve) => {
        process.once('SIGCONT', () => resolve());
        process.stdout.write(`${WINDOW_TX_OPEN_MARKER} ${jobId}\n`);
      });
  }
}
