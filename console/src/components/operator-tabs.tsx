import { Link, usePath } from '../router';

const TABS = [
  { to: '/operator', label: 'Accounts' },
  { to: '/operator/senders', label: 'Sender review' },
  { to: '/operator/templates', label: 'Template review' },
  { to: '/operator/sandbox', label: 'Sandbox' },
];

/** The operator area's sections (signed in with the admin token, not an API key). */
export function OperatorTabs() {
  const path = usePath();
  return (
    <nav className="tabs" aria-label="Operator area">
      {TABS.map((t) => (
        <Link key={t.to} to={t.to} aria-current={path === t.to ? 'page' : undefined}>
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
