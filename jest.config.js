// Three projects: unit specs beside the code; e2e suites in test/<feature>/ (real app, real database);
// slow: the e2e suites that run replicas, shut apps down or crash them, or drive a browser. `npm test`
// runs all three; `npm run test:fast` leaves out slow.
// SWC transpiles (about 4x faster than ts-jest); type checking is `npm run typecheck`.
const { availableParallelism } = require('node:os');
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
};
const e2e = {
  ...common,
  rootDir: '.',
  roots: ['<rootDir>/test'],
  testRegex: '.*\\.e2e-spec\\.ts$',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  // Every supertest response is checked against the committed OpenAPI documents.
  setupFilesAfterEnv: ['<rootDir>/test/support/openapi-hook.ts'],
};
// The slow project: suites that spawn, kill or restart replicas, shut down or crash apps, or drive
// Chromium (every test/console/ suite but the two that load no page). A new suite of that kind goes
// on this list; the e2e project runs every other suite.
const SLOW = [
  '/test/bulk/bulk-replicas\\.e2e-spec\\.ts$',
  '/test/bulk/bulk-crash-recovery\\.e2e-spec\\.ts$',
  '/test/webhooks/webhooks-replicas\\.e2e-spec\\.ts$',
  '/test/common/shutdown\\.e2e-spec\\.ts$',
  '/test/console/(?!console-serving\\.|event-types\\.).*\\.e2e-spec\\.ts$',
];
module.exports = {
  projects: [
    { ...common, displayName: 'unit', rootDir: 'src', testRegex: '.*\\.spec\\.ts$' },
    // Slow suites left out by the regex, not by testPathIgnorePatterns: a --testPathIgnorePatterns on the
    // command line (.ci/run passes one) replaces the project's list, and they would run in both projects.
    { ...e2e, displayName: 'e2e', testRegex: `^(?!.*(?:${SLOW.join('|')})).*\\.e2e-spec\\.ts$` },
    { ...e2e, displayName: 'slow', testRegex: SLOW },
  ],
  testTimeout: 60000,
  // Longest files first, also on a clean clone (test/support/test-sequencer.js).
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  // At least three test files at once (Jest's default is one fewer than the cores: one on a 2-core box).
  // An e2e suite waits much of its time on its app, the database and timers; each has its own database
  // (file or MariaDB database), ports, temp directories and Redis key prefix, so suites may overlap. On
  // two busy cores `npm test` went from 18 to under 14 minutes.
  maxWorkers: Math.max(3, availableParallelism() - 1),
  // A test file runs in a worker process that is replaced once it holds more than this after a file:
  // in one long in-band process (the default on 2 cores) memory grew past 4 GB over the e2e suites and
  // the last app boots took over a minute.
  workerIdleMemoryLimit: '1GB',
};
