import { useCallback, useEffect, useState } from 'react';
import { SseParser } from '../lib/sse';
import { useClient } from './context';
import { ApiFailure, asFailure, toFailure } from './failure';
import type { Schemas } from './public';

type Job = Schemas['BulkJobResource'];

export interface JobStream {
  job: Job | undefined;
  error: ApiFailure | null;
  /** True while the stream is open (false once the job settled and the server sent `end`). */
  live: boolean;
  /** Opens the stream again (after resume or retry: a settled job's stream has ended). */
  restart(): void;
}

/** After a broken connection (a replica shutting down, a network blip), reconnect this much later. */
const RECONNECT_MS = 1000;

/**
 * Live progress of a bulk job from GET /messages/bulk/{jobId}/events, read with fetch() and a
 * ReadableStream reader through the typed client. The server sends the job at once and on every
 * change, and `end` once the job is settled; a stream that breaks off before `end` is reopened.
 */
export function useJobStream(jobId: string): JobStream {
  const client = useClient();
  const [job, setJob] = useState<Job | undefined>(undefined);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [live, setLive] = useState(true);
  const [generation, setGeneration] = useState(0);
  const restart = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    const abort = new AbortController();
    let timer: number | undefined;
    const open = async (): Promise<void> => {
      setLive(true);
      let ended = false;
      try {
        const res = await client.GET('/api/v2/messages/bulk/{jobId}/events', {
          params: { path: { jobId } },
          parseAs: 'stream',
          signal: abort.signal,
        });
        if (!res.response.ok) {
          // An error answer is a JSON envelope (the stream never started): show it, do not retry.
          setError(toFailure(res.response, res.error));
          setLive(false);
          return;
        }
        setError(null);
        const reader = (res.data as ReadableStream<Uint8Array>).getReader();
        const decoder = new TextDecoder();
        const parser = new SseParser();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const e of parser.push(decoder.decode(value, { stream: true }))) {
            if (e.event === 'job') setJob(JSON.parse(e.data) as Job);
            else if (e.event === 'end') ended = true;
          }
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        setError(asFailure(err));
      }
      if (abort.signal.aborted) return;
      if (ended) setLive(false);
      else timer = window.setTimeout(() => void open(), RECONNECT_MS);
    };
    void open();
    return () => {
      abort.abort();
      window.clearTimeout(timer);
    };
  }, [client, jobId, generation]);

  return { job, error, live, restart };
}
