import { useCallback, useState } from 'react';
import { Page } from '../components/page';
import { AuditLog } from './developers-audit';
import { DeliveryLog } from './developers-deliveries';
import { EndpointsPanel } from './developers-endpoints';
import { ApiKeysPanel } from './developers-keys';
import { WebhookPanel } from './developers-webhook';

/** API and developers: API keys, the web-session webhook, event endpoints, the webhook delivery log and the audit log. */
export function DevelopersPage() {
  // A sent test event or a redelivery refreshes the log below.
  const [version, setVersion] = useState(0);
  const refreshLog = useCallback(() => setVersion((v) => v + 1), []);
  return (
    <Page title="API and developers">
      <ApiKeysPanel />
      <WebhookPanel onDelivery={refreshLog} />
      <EndpointsPanel onDelivery={refreshLog} />
      <DeliveryLog version={version} onDelivery={refreshLog} />
      <AuditLog />
    </Page>
  );
}
