// Two projects: unit specs beside the code, e2e suites in test/ (real app, real database).
// SWC transpiles (about 4x faster than ts-jest); type checking is `npm run typecheck`.
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
module.exports = {
  projects: [
    { ...common, displayName: 'unit', rootDir: 'src', testRegex: '.*\\.spec\\.ts$' },
    {
      ...common,
      displayName: 'e2e',
      rootDir: '.',
      roots: ['<rootDir>/test'],
      testRegex: '.*\\.e2e-spec\\.ts$',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['reflect-metadata'],
      // Every supertest response is checked against the committed OpenAPI documents.
      setupFilesAfterEnv: ['<rootDir>/test/support/openapi-hook.ts'],
    },
  ],
  testTimeout: 60000,
  // A test file runs in a worker process that is replaced once it holds more than this after a file:
  // in one long in-band process (the default on 2 cores) memory grew past 4 GB over the e2e suites and
  // the last app boots took over a minute.
  workerIdleMemoryLimit: '1GB',
};
