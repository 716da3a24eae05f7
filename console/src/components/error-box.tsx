import type { ApiFailure } from '../api/failure';

/** Every failed call is shown the same way: the API's `code`, its `error` text and the request id. */
export function ErrorBox({ error }: { error: ApiFailure | null | undefined }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      <strong className="error-code">{error.code}</strong>
      {error.status > 0 && <span className="muted"> (HTTP {error.status})</span>}
      <span>: {error.message || 'no error text'}</span>
      {error.requestId && (
        <div className="muted small">
          Request id: <code>{error.requestId}</code>
        </div>
      )}
    </div>
  );
}
