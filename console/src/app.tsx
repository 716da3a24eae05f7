import { Link, match, usePath } from './router';
import { ROUTES, type RouteDef } from './routes';
import { session, useActiveKey, useAdminToken, useApiKey } from './session';
import { TestModeBanner, TestModeSwitch } from './components/test-mode';
import { SignInPage } from './pages/sign-in';
import { OperatorSignInPage } from './pages/operator-sign-in';
import { Page, Empty } from './components/page';

function find(path: string): { route: RouteDef; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const params = match(route.path, path);
    if (params) return { route, params };
  }
  return null;
}

function isActive(route: RouteDef, path: string): boolean {
  return route.path === '/' ? path === '/' : path === route.path || path.startsWith(`${route.path}/`);
}

export function App() {
  const path = usePath();
  const apiKey = useApiKey();
  const activeKey = useActiveKey();
  const adminToken = useAdminToken();
  const found = find(path);
  const operator = found?.route.area === 'operator';

  let body;
  if (!found)
    body = (
      <Page title="Not found">
        <Empty>No console page at {path}.</Empty>
      </Page>
    );
  else if (operator && !adminToken) body = <OperatorSignInPage />;
  else if (!operator && !apiKey) body = <SignInPage />;
  else body = found.route.render(found.params);

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Messaging console
        </Link>
        <div className="who">
          {apiKey && !operator && <TestModeSwitch />}
          {apiKey && (
            <button type="button" className="link" onClick={session.signOut}>
              Sign out
            </button>
          )}
          {adminToken && (
            <button type="button" className="link" onClick={session.operatorSignOut}>
              Leave operator area
            </button>
          )}
        </div>
      </header>
      {!operator && <TestModeBanner />}
      <div className="layout">
        <nav className="side" aria-label="Console">
          <ul>
            {ROUTES.filter((r) => r.nav && (r.area === 'operator' || apiKey)).map((r) => (
              <li key={r.path}>
                <Link
                  to={r.path}
                  aria-current={isActive(r, path) ? 'page' : undefined}
                  className={r.area === 'operator' ? 'operator-link' : undefined}
                >
                  {r.nav}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        {/* A new key (test mode on or off) loads every page afresh. */}
        <main id="main" key={operator ? 'operator' : (activeKey ?? '')}>
          {body}
        </main>
      </div>
    </>
  );
}
