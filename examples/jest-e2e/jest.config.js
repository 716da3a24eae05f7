// Jest for the example: ts-jest compiles (and type-checks) the tests and the typed client they import
// from ../../clients/typescript. The tests talk to a running service; see README.md.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', {}] },
  // ../../clients/typescript/index.ts imports openapi-fetch: resolve it to this project's copy (its
  // CommonJS build), as tsconfig.json's `paths` does for the types.
  moduleNameMapper: { '^openapi-fetch$': require.resolve('openapi-fetch') },
  // Each wait has its own deadline (support/poll.ts); this only bounds a test as a whole.
  testTimeout: 120_000,
};
