import { useState } from 'react';

/**
 * Cursor paging as the API does it: the first page has no cursor, each answer gives `nextCursor`.
 * "Previous" replays the cursors seen so far.
 */
export function useCursor(resetKey: string) {
  const [state, setState] = useState<{ key: string; stack: (string | undefined)[] }>({
    key: resetKey,
    stack: [undefined],
  });
  // New filters start again at the first page.
  const stack = state.key === resetKey ? state.stack : [undefined];
  if (state.key !== resetKey) setState({ key: resetKey, stack });
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    next: (c: string) => setState({ key: resetKey, stack: [...stack, c] }),
    previous: () => setState({ key: resetKey, stack: stack.slice(0, -1) }),
    first: () => setState({ key: resetKey, stack: [undefined] }),
  };
}

export function Pager({
  pager,
  nextCursor,
  label,
}: {
  pager: ReturnType<typeof useCursor>;
  nextCursor: string | null | undefined;
  label: string;
}) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={pager.previous} disabled={pager.page <= 1}>
        Previous
      </button>
      <span className="muted">Page {pager.page}</span>
      <button type="button" onClick={() => nextCursor && pager.next(nextCursor)} disabled={!nextCursor}>
        Next
      </button>
    </nav>
  );
}
