import type { ReactNode } from 'react';
import { BulkJobPage } from './pages/bulk-job';
import { BulkJobsPage } from './pages/bulk-jobs';
import { BulkNewPage } from './pages/bulk-new';
import { DevelopersPage } from './pages/developers';
import { InboundSmsPage } from './pages/inbound-sms';
import { MessageDetailPage } from './pages/message-detail';
import { MessagesPage } from './pages/messages';
import { OperatorAccountsPage } from './pages/operator-accounts';
import { OperatorSandboxPage } from './pages/operator-sandbox';
import { OperatorSendersPage } from './pages/operator-senders';
import { OperatorTemplatesPage } from './pages/operator-templates';
import { OverviewPage } from './pages/overview';
import { SendersPage } from './pages/senders';
import { SuppressionsPage } from './pages/suppressions';
import { TemplatesPage } from './pages/templates';

// One line per page: the path pattern (":name" is a parameter), its navigation label (pages without
// one are reached from another page) and what it renders. `area: 'operator'` pages sign in with the
// admin token instead of an API key. The first matching pattern wins.
export interface RouteDef {
  path: string;
  nav?: string;
  area?: 'operator';
  render(params: Record<string, string>): ReactNode;
}

export const ROUTES: RouteDef[] = [
  { path: '/', nav: 'Overview', render: () => <OverviewPage /> },
  { path: '/developers', nav: 'API and developers', render: () => <DevelopersPage /> },
  { path: '/messages', nav: 'Messages', render: () => <MessagesPage /> },
  { path: '/messages/:id', render: (p) => <MessageDetailPage id={p.id} /> },
  { path: '/bulk', nav: 'Bulk jobs', render: () => <BulkJobsPage /> },
  { path: '/bulk/new', render: () => <BulkNewPage /> },
  { path: '/bulk/:id', render: (p) => <BulkJobPage id={p.id} key={p.id} /> },
  { path: '/templates', nav: 'Templates', render: () => <TemplatesPage /> },
  { path: '/senders', nav: 'Sender names', render: () => <SendersPage /> },
  { path: '/inbound-sms', nav: 'Inbound SMS', render: () => <InboundSmsPage /> },
  { path: '/suppressions', nav: 'Suppressions', render: () => <SuppressionsPage /> },
  { path: '/operator', nav: 'Operator', area: 'operator', render: () => <OperatorAccountsPage /> },
  { path: '/operator/senders', area: 'operator', render: () => <OperatorSendersPage /> },
  { path: '/operator/templates', area: 'operator', render: () => <OperatorTemplatesPage /> },
  { path: '/operator/sandbox', area: 'operator', render: () => <OperatorSandboxPage /> },
];
