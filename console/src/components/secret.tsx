import { useState } from 'react';

/** A secret shown once (a new API key, a new webhook key): select-all field and a copy button. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> - copy it now: it is shown only once.
      </p>
      <div className="row">
        <input aria-label={label} readOnly value={value} onFocus={(e) => e.currentTarget.select()} className="mono grow" data-testid="shown-once" />
        <button type="button" onClick={() => void copy()}>{copied ? 'Copied' : 'Copy'}</button>
        {onDone && <button type="button" onClick={onDone}>Done</button>}
      </div>
    </div>
  );
}
