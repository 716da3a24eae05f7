import { FormEvent, useState } from 'react';
import { publicClient } from '../api/public';
import { unwrap } from '../api/failure';
import { useAction } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { session } from '../session';

/** Sign in by pasting an API key; it is checked against GET /api/v2/account before it is kept. */
export function SignInPage() {
  const [key, setKey] = useState('');
  const check = useAction(async (k: string) => unwrap(publicClient(k).GET('/api/v2/account')));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const k = key.trim();
    if (await check.run(k)) session.signIn(k);
  };
  return (
    <div className="narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      <p>
        Paste an API key of your account. It is kept in this browser tab only (session storage) and removed when you
        sign out or close the tab.
      </p>
      <form onSubmit={(e) => void submit(e)} className="card stack">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={key}
          onChange={(e) => setKey(e.target.value)}
          className="mono"
        />
        <ErrorBox error={check.error} />
        <div>
          <button type="submit" className="primary" disabled={check.busy || !key.trim()}>
            {check.busy ? 'Checking...' : 'Sign in'}
          </button>
        </div>
      </form>
      <p className="muted small">Operators: the operator area signs in with the admin token instead.</p>
    </div>
  );
}
