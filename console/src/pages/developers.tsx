import { useCallback, useState } from 'react';
import { Page } from '../components/page';
import { DeliveryLog } from './developers-deliveries';
import { ApiKeysPanel } from './developers-keys';
import { WebhookPanel } from './developers-webhook';

/** API and developers: API keys, the web-session webhook and the webhook delivery log. */
export function DevelopersPage() {
  // A sent test event refreshes the log below.
  const [version, setVersion] = useState(0);
  const refreshLog = useCallback(() => setVersion((v) => v + 1), []);
  return (
    <Page title="API and developers">
      <ApiKeysPanel />
      <WebhookPanel onDelivery={refreshLog} />
      <DeliveryLog version={version} />
    </Page>
  );
}
