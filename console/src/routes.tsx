import type { ReactNode } from 'react';
import { OverviewPage } from './pages/overview';

// One line per page: the path pattern (":name" is a parameter), its navigation label (pages without
// one are reached from another page) and what it renders. `area: 'operator'` pages sign in with the
// admin token instead of an API key.
export interface RouteDef {
  path: string;
  nav?: string;
  area?: 'operator';
  render(params: Record<string, string>): ReactNode;
}

export const ROUTES: RouteDef[] = [
  { path: '/', nav: 'Overview', render: () => <OverviewPage /> },
];
