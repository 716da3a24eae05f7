import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure, asFailure } from './failure';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiFailure | null;
  loading: boolean;
  reload(): void;
}

/**
 * Runs `load` when `key` changes (and on reload()); a newer run wins over an older one still in flight.
 * `key` is a string so callers pass their inputs joined, never an object that changes every render.
 */
export function useApi<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: ApiFailure | null; loading: boolean }>({
    data: undefined,
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    loadRef.current().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (err: unknown) => live && setState((s) => ({ data: s.data, error: asFailure(err), loading: false })),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** An action button's state: run it, remember its result or failure. */
export function useAction<A extends unknown[], T>(act: (...args: A) => Promise<T>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [result, setResult] = useState<T | undefined>(undefined);
  const run = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setBusy(true);
      setError(null);
      try {
        const r = await act(...args);
        setResult(r);
        return r;
      } catch (err) {
        setError(asFailure(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [act],
  );
  return { run, busy, error, result, clear: () => setError(null) };
}

/**
 * Calls `fn` every `ms` while `active`; stops on unmount (live progress without an event stream).
 * Pass `active` false while the previous load is in flight (`!loaded.loading`): a reload supersedes
 * the run still in flight, so on a connection slower than `ms` nothing would ever be shown.
 */
export function usePolling(fn: () => void, ms: number, active: boolean): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (!active) return undefined;
    const id = window.setInterval(() => ref.current(), ms);
    return () => window.clearInterval(id);
  }, [ms, active]);
}
