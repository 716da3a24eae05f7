import { purgePace, sumPurged } from './retention-purger';

describe('purgePace: how the retention purger goes on after a unit', () => {
  const settings = { purgeBatch: 2000, purgeShare: 100, purgeBusyShare: 25 };

  it('quiet (others held the one writer under 5% of the time): full batches, no rest', () => {
    expect(purgePace(settings, 0, 1000)).toEqual({ busy: false, rows: 2000, share: 1 });
    expect(purgePace(settings, 49, 1000)).toEqual({ busy: false, rows: 2000, share: 1 });
  });

  it('busy (5% or more): a quarter batch and RETENTION_PURGE_BUSY_SHARE of the time', () => {
    expect(purgePace(settings, 50, 1000)).toEqual({ busy: true, rows: 500, share: 0.25 });
    expect(purgePace(settings, 900, 1000)).toEqual({ busy: true, rows: 500, share: 0.25 });
  });

  it('a busy unit is never under 10 rows; RETENTION_PURGE_SHARE still caps a busy share above it', () => {
    expect(purgePace({ purgeBatch: 12, purgeShare: 20, purgeBusyShare: 25 }, 500, 1000)).toEqual({
      busy: true,
      rows: 10,
      share: 0.2,
    });
    expect(purgePace({ purgeBatch: 12, purgeShare: 20, purgeBusyShare: 25 }, 0, 1000).share).toBe(0.2);
  });

  it('never busy where writes run side by side (no figure) or no time has passed', () => {
    expect(purgePace(settings, null, 1000)).toEqual({ busy: false, rows: 2000, share: 1 });
    expect(purgePace(settings, 5, 0).busy).toBe(false);
  });
});

describe('sumPurged: the rows of units deleted at once', () => {
  it('adds each table over the units; none is empty', () => {
    expect(sumPurged([{ messages: 2, message_status_history: 4 }, { messages: 1, sandbox_deliveries: 1 }, {}])).toEqual(
      {
        messages: 3,
        message_status_history: 4,
        sandbox_deliveries: 1,
      },
    );
    expect(sumPurged([])).toEqual({});
  });
});
