import { useRef, useState } from 'react';

/** A secret shown once (a new API key, a new webhook key): select-all field and a copy button. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'select' | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      // Undefined outside a secure context (plain HTTP to a LAN host name): the catch below.
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      // Select the key so Ctrl+C copies it, and say so.
      field.current?.focus();
      field.current?.select();
      setCopied('select');
    }
  };
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> - copy it now: it is shown only once.
      </p>
      <div className="row">
        <input
          ref={field}
          aria-label={label}
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
          className="mono grow"
          data-testid="shown-once"
        />
        <button type="button" onClick={() => void copy()}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
        {onDone && (
          <button type="button" onClick={onDone}>
            Done
          </button>
        )}
      </div>
      {copied === 'select' && <p className="small">Selected: press Ctrl+C (Cmd+C) to copy.</p>}
    </div>
  );
}
