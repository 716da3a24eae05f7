import { FakeClock } from '../common/fake-clock';
import { pipelineHarness, PipelineHarness, smsTo } from '../messaging/testing/pipeline-harness';
import type { WindowItem } from '../messaging/window-sender';
import { SendWindow, WindowPacer } from './send-window';

describe(SendWindow.name, () => {
  it('lets `limit` sends complete per second: the next one waits until the oldest of them is a second old', () => {
    const w = new SendWindow();
    expect(w.waitMs(0, 2)).toBe(0);
    w.record(100);
    w.record(300);
    expect(w.waitMs(400, 3)).toBe(0);
    expect(w.waitMs(400, 2)).toBe(701);
    expect(w.waitMs(1101, 2)).toBe(0);
  });
});

describe(WindowPacer.name, () => {
  let h: PipelineHarness;
  let clock: FakeClock;
  beforeAll(async () => {
    clock = new FakeClock({ autoAdvance: true });
    h = await pipelineHarness({ lookup: true, clock });
  });
  afterAll(() => h.close());

  it('a job of N messages at M per second never starts more than M provider calls in any second of clock time, and runs in milliseconds', async () => {
    const N = 23;
    const M = 4;
    const acc = await h.account({ wallet: 1000 });
    h.provider.callMs = 120;
    const pacer = new WindowPacer(clock, new SendWindow(), M, {
      stopping: () => false,
      keepLease: () => Promise.resolve(true),
    });
    const items: WindowItem[] = Array.from({ length: N }, (_, i) => ({
      msg: smsTo(`+9665020${String(i).padStart(5, '0')}`),
      origin: { bulkJobId: 'job_paced', rowIndex: i, messageId: `msg_paced_${i}` },
    }));
    const wallStart = Date.now();
    const clockStart = clock.now();
    // As the runner does: windows of at most M rows, one pacer for the whole job.
    for (let i = 0; i < N; i += M) {
      const out = await h.windows.sendWindow(acc, items.slice(i, i + M), pacer);
      expect(out.every((o) => o.kind === 'sent')).toBe(true);
    }
    const wall = Date.now() - wallStart;
    const starts = h.provider.calls.map((c) => c.startedAt).sort((a, b) => a - b);
    expect(starts).toHaveLength(N);
    let most = 0;
    for (let i = 0, j = 0; i < starts.length; i++) {
      while (starts[i] - starts[j] >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    expect(most).toBe(M);
    // Paced, not bunched: the job took about (N - M) / M seconds of clock time, not N x 120 ms.
    expect(clock.now() - clockStart).toBeGreaterThanOrEqual(((N - M) / M) * 1000);
    expect(clock.now() - clockStart).toBeLessThan((N / M + 1) * 1000);
    expect(wall).toBeLessThan(2000);
    expect(clock.sleeping).toBe(0);
  });

  it('stops the window for shutdown (before and after waiting) and for a lost lease, without a call', async () => {
    let stopping = false;
    let leased = true;
    const window = new SendWindow();
    const pacer = new WindowPacer(clock, window, 1, {
      stopping: () => stopping,
      keepLease: () => Promise.resolve(leased),
    });
    expect(await pacer.before()).toBeNull();
    pacer.after();
    leased = false;
    expect(await pacer.before()).toBe('lease_lost');
    stopping = true;
    expect(await pacer.before()).toBe('shutting_down');
    // Shutdown asked while the pacer waited for the window: no call starts after the wait.
    stopping = false;
    window.record(clock.now());
    const waiting = pacer.before();
    stopping = true;
    expect(await waiting).toBe('shutting_down');
  });
});
