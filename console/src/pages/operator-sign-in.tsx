import { FormEvent, useState } from 'react';
import { adminClient } from '../api/admin';
import { unwrap } from '../api/failure';
import { useAction } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { session } from '../session';

/** The operator area signs in with the admin token (ADMIN_TOKEN), checked by one harmless read. */
export function OperatorSignInPage() {
  const [token, setToken] = useState('');
  const check = useAction(async (t: string) =>
    unwrap(adminClient(t).GET('/admin/v1/sms-senders', { params: { query: { status: 'pending' } } })),
  );
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const t = token.trim();
    if (await check.run(t)) session.operatorSignIn(t);
  };
  return (
    <div className="narrow">
      <h1 tabIndex={-1}>Operator sign-in</h1>
      <p>
        The operator area manages every account. Paste the server&apos;s admin token; it is kept in this tab only
        (session storage).
      </p>
      <form onSubmit={(e) => void submit(e)} className="card stack">
        <label htmlFor="admin-token">Admin token</label>
        <input
          id="admin-token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={token}
          onChange={(e) => setToken(e.target.value)}
          className="mono"
        />
        <ErrorBox error={check.error} />
        <div>
          <button type="submit" className="primary" disabled={check.busy || !token.trim()}>
            {check.busy ? 'Checking...' : 'Sign in to the operator area'}
          </button>
        </div>
      </form>
    </div>
  );
}
