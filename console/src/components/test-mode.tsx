import { useState } from 'react';
import { publicClient } from '../api/public';
import { isTestKey, session, useActiveKey, useApiKey } from '../session';

/**
 * The "Test mode" switch: an owner's first switch creates a test owner key (POST /api/v2/api-keys,
 * mode test) kept for the tab; the pages then read and write the account's test data only.
 */
export function TestModeSwitch() {
  const apiKey = useApiKey();
  const active = useActiveKey();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!apiKey) return null;
  const fixed = isTestKey(apiKey);
  const on = isTestKey(active);

  const toggle = async () => {
    setError(null);
    if (on) return session.leaveTestMode();
    const kept = session.testKey();
    if (kept) return session.enterTestMode(kept);
    setBusy(true);
    try {
      const { data, error: failed } = await publicClient(apiKey).POST('/api/v2/api-keys', {
        body: { name: 'Console test mode', mode: 'test', role: 'owner' },
      });
      if (data) session.enterTestMode(data.data.apiKey.key);
      else
        setError(
          failed?.code === 'FORBIDDEN' ? 'Only an owner key can turn on test mode' : (failed?.error ?? 'Failed'),
        );
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="mode-switch">
      <label>
        <input
          type="checkbox"
          role="switch"
          checked={on}
          disabled={busy || fixed}
          onChange={() => void toggle()}
          aria-describedby={error ? 'test-mode-error' : undefined}
        />{' '}
        Test mode
      </label>
      {error && (
        <span id="test-mode-error" role="alert" className="small">
          {error}
        </span>
      )}
    </span>
  );
}

/** Shown on every page while the console reads test data. */
export function TestModeBanner() {
  const active = useActiveKey();
  if (!isTestKey(active)) return null;
  return (
    <div className="test-banner" role="status">
      <strong>Test mode</strong>: you are viewing test data. Nothing reaches a real recipient or provider and no live
      money is spent.
    </div>
  );
}
