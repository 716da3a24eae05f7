const TONE: Record<string, string> = {
  delivered: 'ok',
  read: 'ok',
  sent: 'ok',
  completed: 'ok',
  approved: 'ok',
  active: 'ok',
  enabled: 'ok',
  failed: 'bad',
  rejected: 'bad',
  invalid: 'bad',
  cancelled: 'muted',
  disabled: 'muted',
  paused: 'warn',
  pending: 'warn',
  queued: 'warn',
  validating: 'warn',
  accepting: 'warn',
  scheduled: 'warn',
  running: 'info',
};

/** A status word with a colour cue; the word itself carries the meaning (never colour alone). */
export function Status({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">-</span>;
  return <span className={`status status-${TONE[value] ?? 'info'}`}>{value}</span>;
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">-</span>;
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString()}
    </time>
  );
}

/** Integer minor units as a decimal amount (2 decimals: halalas, cents). */
export function money(minor: number, currency?: string): string {
  return currency ? `${(minor / 100).toFixed(2)} ${currency}` : (minor / 100).toFixed(2);
}
