import { ConfigError } from './env-reader';
import { loadConfig } from './app-config';

// The retention defaults as docs/operations.md ("Data kept and for how long") and README document them.
describe('config: retention', () => {
  it('defaults', () => {
    expect(loadConfig({}).retention).toEqual({
      messagesDays: 90,
      bulkJobsDays: 90,
      inboundDays: 90,
      sandboxDeliveriesDays: 7,
      accountMaxDays: 730,
      purgeTickMs: 60_000,
      purgeBatch: 2000,
      purgeShare: 100,
      purgeBusyShare: 25,
      purgeStreams: 1,
      usageTickMs: 10_000,
      dayMs: 86_400_000,
    });
  });

  it('refuses a retention of 0 days and a tick under a second, naming each', () => {
    expect(() => loadConfig({ RETENTION_MESSAGES_DAYS: '0', RETENTION_PURGE_TICK_MS: '10' })).toThrow(
      /RETENTION_MESSAGES_DAYS[\s\S]*RETENTION_PURGE_TICK_MS/,
    );
    expect(() => loadConfig({ RETENTION_SANDBOX_DAYS: 'x' })).toThrow(ConfigError);
  });

  it('takes RETENTION_PURGE_BUSY_SHARE from 5 to 100 percent', () => {
    expect(loadConfig({ RETENTION_PURGE_BUSY_SHARE: '100' }).retention.purgeBusyShare).toBe(100);
    expect(() => loadConfig({ RETENTION_PURGE_BUSY_SHARE: '4' })).toThrow(/RETENTION_PURGE_BUSY_SHARE/);
  });

  it('takes RETENTION_PURGE_STREAMS from 1 to 8', () => {
    expect(loadConfig({ RETENTION_PURGE_STREAMS: '2' }).retention.purgeStreams).toBe(2);
    expect(() => loadConfig({ RETENTION_PURGE_STREAMS: '0' })).toThrow(/RETENTION_PURGE_STREAMS/);
    expect(() => loadConfig({ RETENTION_PURGE_STREAMS: '9' })).toThrow(/RETENTION_PURGE_STREAMS/);
  });
});
