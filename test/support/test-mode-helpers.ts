import { TestApp } from './app';

/** A test key of the account of `liveOwnerKey` (POST /api/v2/api-keys with mode test). */
export async function createTestKey(
  t: TestApp,
  liveOwnerKey: string,
  spec: { role?: 'owner' | 'member'; permissions?: string[]; name?: string } = {},
): Promise<{ id: string; key: string }> {
  const role = spec.role ?? 'owner';
  const res = await t
    .http()
    .post('/api/v2/api-keys')
    .set('X-API-Key', liveOwnerKey)
    .send({
      name: spec.name ?? `test ${role}`,
      mode: 'test',
      role,
      ...(role === 'member' ? { permissions: spec.permissions ?? ['messages:create', 'messages:read'] } : {}),
    });
  if (res.status !== 201) throw new Error(`createTestKey failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.apiKey.id as string, key: res.body.data.apiKey.key as string };
}
