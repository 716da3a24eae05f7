import type { EnvReader } from './env-reader';

/**
 * The only NODE_ENV values that relax production rules. Anything else (`prod`, `staging`,
 * `PRODUCTION`, an empty string) is production: a typo must fail safe, not run with the
 * development secret and a printed demo key. Unset means development, so `npm start` just works.
 */
const NON_PRODUCTION_ENVS: readonly string[] = ['development', 'test'];

/** What NODE_ENV says about this process; every section that relaxes a rule outside production reads it. */
export interface RuntimeMode {
  nodeEnv: string;
  isProduction: boolean;
}

export function runtimeMode(r: EnvReader): RuntimeMode {
  const nodeEnv = r.raw('NODE_ENV') ?? 'development';
  return { nodeEnv, isProduction: !NON_PRODUCTION_ENVS.includes(nodeEnv) };
}
