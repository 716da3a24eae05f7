import { useMemo } from 'react';
import { useActiveKey, useAdminToken } from '../session';
import { adminClient, type AdminClient } from './admin';
import { publicClient, type MessagingClient } from './public';

/** The public client for the signed-in key (its test key in test mode). Pages under the signed-in shell only. */
export function useClient(): MessagingClient {
  const key = useActiveKey();
  if (!key) throw new Error('useClient outside a signed-in page');
  return useMemo(() => publicClient(key), [key]);
}

/** The operator client for the signed-in admin token. Operator pages only. */
export function useAdmin(): AdminClient {
  const token = useAdminToken();
  if (!token) throw new Error('useAdmin outside a signed-in operator page');
  return useMemo(() => adminClient(token), [token]);
}
