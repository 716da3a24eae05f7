import type { EnvReader } from './env-reader';

/** Test keys (issue 30): what an account's test mode starts with. */
export interface TestModeConfig {
  /**
   * TEST_MODE_BALANCE: minor units of the test wallet when an account's test mode is first used and
   * each time its owner resets it. Test money is never live money.
   */
  balance: number;
}

export function testModeSection(r: EnvReader): TestModeConfig {
  return { balance: r.int('TEST_MODE_BALANCE', 100_000, 0, 1_000_000_000) };
}
