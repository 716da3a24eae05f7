import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Env } from '../../src/config/app-config';

/**
 * `node` arguments and environment that start `src/main.ts` in a process of its own: ts-node with SWC
 * as its transpiler (spawned-app.tsconfig.json), as Jest's transform is; TypeScript's transpiler took
 * about 9 s of CPU a start here, SWC 2 s.
 */
export const MAIN_TS_ARGS = ['-r', 'ts-node/register/transpile-only', join(__dirname, '..', '..', 'src', 'main.ts')];
export const MAIN_TS_ENV = { TS_NODE_PROJECT: join(__dirname, 'spawned-app.tsconfig.json') };

/** `src/main.ts` in its own process (ts-node), as `npm start` runs it: start-up output and exit code. */
export interface SpawnedApp {
  proc: ChildProcess;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** Resolves with the output once `pattern` appears; rejects if the process exits first. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export function spawnApp(env: Env): SpawnedApp {
  const root = join(__dirname, '..', '..');
  const proc = spawn(process.execPath, MAIN_TS_ARGS, {
    cwd: root,
    env: { PATH: process.env.PATH, ...MAIN_TS_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (b: Buffer) => {
    out += b.toString();
    for (const l of listeners) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    output: () => out,
    exited,
    waitForOutput(pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const done = (fn: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          fn();
        };
        const check = () => {
          if (pattern.test(out)) done(() => resolve(out));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${out.slice(-3000)}`))),
          timeoutMs,
        );
        listeners.add(check);
        void exited.then((code) =>
          done(() =>
            pattern.test(out)
              ? resolve(out)
              : reject(new Error(`exited (${code}) before ${pattern}; output:\n${out.slice(-3000)}`)),
          ),
        );
        check();
      });
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
