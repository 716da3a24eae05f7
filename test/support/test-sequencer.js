// Runs the longest test files first, so that no long suite starts last and holds the run open while
// the other workers sit idle. Jest orders by the durations it cached on this machine; a clean clone (CI)
// has none, and Jest would fall back to file size, which puts a short file with one long test (the fraud
// attack, 2,000 requests) at the end. A file Jest has no time for takes its time from
// test/support/suite-seconds.json (written by `node scripts/suite-seconds.mjs <jest --json output>...`;
// a stale figure only changes the order).
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const hints = require('./suite-seconds.json');

const root = join(__dirname, '..', '..');

class LongestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const hint = hints[relative(root, test.path)];
    return hint == null ? undefined : hint * 1000;
  }
}

module.exports = LongestFirst;
