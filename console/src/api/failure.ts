/** An API answer that was not 2xx, or a request that got no answer: what every page shows. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

type FetchResult<T> = { data?: T; error?: unknown; response: Response };

/** The 2xx body of an openapi-fetch call, or an ApiFailure carrying the envelope's code and error. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await call;
  } catch (err) {
    throw new ApiFailure(
      0,
      'NETWORK_ERROR',
      `The service did not answer (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (result.response.ok) return result.data as T;
  throw toFailure(result.response, result.error);
}

export function toFailure(response: Response, body: unknown): ApiFailure {
  if (body && typeof body === 'object' && 'code' in body) {
    const e = body as { code: unknown; error?: unknown; requestId?: unknown };
    return new ApiFailure(
      response.status,
      String(e.code),
      String(e.error ?? ''),
      typeof e.requestId === 'string' ? e.requestId : undefined,
    );
  }
  // Not our envelope (a proxy in front answered): still show status and text.
  return new ApiFailure(
    response.status,
    `HTTP_${response.status}`,
    typeof body === 'string' && body ? body.slice(0, 300) : response.statusText,
  );
}

export function asFailure(err: unknown): ApiFailure {
  return err instanceof ApiFailure
    ? err
    : new ApiFailure(0, 'CONSOLE_ERROR', err instanceof Error ? err.message : String(err));
}
