import { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { newId } from '../../src/common/ids';
import { RetentionPurger } from '../../src/privacy/retention/retention-purger';
import { UsageRollup } from '../../src/privacy/usage/usage-rollup';
import { MetricsService } from '../../src/metrics/metrics.service';
import { Scrape } from '../support/prometheus';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';

export const DAY = 86_400_000;
const METRICS_TOKEN = 'retention-metrics-token-0123456789';

/**
 * The retention suites' app: its Clock reads `Date.now() + shift()`, the purger and the usage roll-up
 * run only when a test ticks them, and the sandbox's receipts come at once (so messages have history).
 */
export async function retentionApp(shift: () => number): Promise<TestApp> {
  const t = await createTestApp({
    env: {
      RETENTION_PURGE_TICK_MS: '3600000',
      USAGE_ROLLUP_TICK_MS: '3600000',
      SANDBOX_DELIVERED_AFTER_MS: '0',
      SANDBOX_READ_AFTER_MS: '0',
      SANDBOX_RECEIPT_TICK_MS: '50',
      METRICS_TOKEN,
      METRICS_REFRESH_MS: '3600000',
      // A test holds a row the purger waits for while it polls; the wait must outlast the poll on a loaded box.
      DB_LOCK_WAIT_TIMEOUT_S: '30',
    },
  });
  t.app.get(Clock).now = () => Date.now() + shift();
  return t;
}

export function retentionHelpers(app: () => TestApp) {
  const ds = () => app().app.get(DataSource);
  const q = async <T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T[]> =>
    (await ds().query(text, params)) as T[];
  const count = async (text: string, ...params: unknown[]): Promise<number> =>
    Number((await q<{ n: number | string }>(text, ...params))[0].n);

  const send = (acc: TestAccount, body: Record<string, unknown>) =>
    app().http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
  const sms = (to: string, text = 'Hello', extra: Record<string, unknown> = {}) => ({
    to,
    channel: 'local_sms',
    messageType: 'free_text',
    content: { text },
    ...extra,
  });

  /** Sends and waits until the sandbox's receipts have moved every message of the account past `sent`. */
  async function sendSettled(acc: TestAccount, bodies: Record<string, unknown>[]): Promise<string[]> {
    const ids: string[] = [];
    for (const b of bodies) {
      const res = await send(acc, b);
      if (res.status !== 200 && res.status !== 201 && res.status !== 202)
        throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
      ids.push(...(res.body.data.messages as { id: string }[]).map((m) => m.id));
    }
    await waitFor(async () => {
      const open = await count(
        `SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND status IN ('queued', 'sent')`,
        acc.id,
      );
      return open === 0;
    });
    return ids;
  }

  /** How many of these messages are still stored. */
  const messagesLeft = (ids: string[]) =>
    count(`SELECT COUNT(*) AS n FROM messages WHERE id IN (${ids.map(() => '?').join(', ')})`, ...ids);

  const purge = async () => (await app().app.get(RetentionPurger).purge()) ?? {};
  const rollUp = async () => app().app.get(UsageRollup).tick();

  /** Rows of every child table whose parent is gone (must always be none). */
  async function orphans(): Promise<Record<string, number>> {
    return {
      message_status_history: await count(
        'SELECT COUNT(*) AS n FROM message_status_history h WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = h.message_id)',
      ),
      message_provider_refs: await count(
        'SELECT COUNT(*) AS n FROM message_provider_refs r WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = r.message_id)',
      ),
      sandbox_deliveries: await count(
        'SELECT COUNT(*) AS n FROM sandbox_deliveries s WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = s.message_id)',
      ),
      bulk_rows: await count(
        'SELECT COUNT(*) AS n FROM bulk_rows r WHERE NOT EXISTS (SELECT 1 FROM bulk_jobs j WHERE j.id = r.job_id)',
      ),
    };
  }

  /** A bulk job stored directly (status, rows with their statuses), made `at`. */
  async function insertJob(accountId: string, status: string, rowStatuses: string[], at: number): Promise<string> {
    const id = newId('bulk');
    const pending = rowStatuses.filter((s) => s === 'pending' || s === 'sending').length;
    await q(
      `INSERT INTO bulk_jobs (id, account_id, name, status, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, created_at, updated_at)
       VALUES (?, ?, 'kept?', ?, 10, ?, ?, ?, 0, 0, 0, 0, ?, ?)`,
      id,
      accountId,
      status,
      rowStatuses.length,
      rowStatuses.length,
      pending,
      at,
      at,
    );
    for (const [idx, s] of rowStatuses.entries())
      await q(
        `INSERT INTO bulk_rows (job_id, idx, status, to_addr, channel, payload, attempt) VALUES (?, ?, ?, '+966501234567', 'local_sms', '{}', 0)`,
        id,
        idx,
        s,
      );
    return id;
  }

  async function insertInbound(accountId: string | null, at: number): Promise<string> {
    const id = newId('isms');
    await q(
      `INSERT INTO inbound_sms (id, account_id, sender_id, from_address, to_address, text, provider_message_id, received_at) VALUES (?, ?, NULL, '+966501234567', '1234', 'hi', NULL, ?)`,
      id,
      accountId,
      at,
    );
    return id;
  }

  /** /metrics after a refresh of the table gauges. */
  async function scrape(): Promise<Scrape> {
    await app().app.get(MetricsService).refreshGauges();
    const res = await app().http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    if (res.status !== 200) throw new Error(`metrics: ${res.status}`);
    return new Scrape(res.text);
  }

  return {
    scrape,
    ds,
    q,
    count,
    send,
    sms,
    sendSettled,
    messagesLeft,
    purge,
    rollUp,
    orphans,
    insertJob,
    insertInbound,
  };
}
