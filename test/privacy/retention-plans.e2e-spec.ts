import { DataSource } from 'typeorm';
import { derivedId, idAt } from '../../src/common/ids';
import type { Stmt } from '../../src/database/sql';
import { PURGED_TABLES, type PurgedTable } from '../../src/common/retention/retention-purges';
import { messagesPurgeStatements as m } from '../../src/messaging/retention/messages-purge.repository';
import { bulkPurgeStatements as b } from '../../src/bulk/bulk-jobs-purge.repository';
import { inboundSmsPurgeStatements as sms } from '../../src/senders/inbound-sms/inbound-sms-purge.repository';
import { webInboundPurgeStatements as web } from '../../src/chatapp-web/inbound/web-inbound-purge.repository';
import { sandboxPurgeStatements as sbx } from '../../src/providers/sandbox/sandbox-purge.repository';
import { usageStatements as u } from '../../src/privacy/usage/usage.repository';
import { createTestApp, TestApp } from '../support/app';
import { isMysqlRun } from '../support/database';
import { accountIdOf } from '../../src/common/account-id';
import { MessageLogRepository, type ListFilter } from '../../src/messaging/message-log.repository';
import { messageLeaseStatements as lease } from '../../src/messaging/scheduled/message-leases.repository';

// The oldest key of each table, from its owner's statements (the metrics' gauges).
const OLDEST: Record<PurgedTable, Stmt> = {
  messages: m.oldest('messages'),
  message_status_history: m.oldest('message_status_history'),
  message_provider_refs: m.oldest('message_provider_refs'),
  sandbox_deliveries: sbx.oldest(),
  bulk_jobs: b.oldest('bulk_jobs'),
  bulk_rows: b.oldest('bulk_rows'),
  inbound_sms: sms.oldest(),
  web_inbound_messages: web.oldest(),
};

// Every statement of the purger and the usage roll-up (and the scheduled sender's reads across accounts,
// which share ix_messages_counted_status with them) reads one index range or primary keys, never a
// scan of a table that grows with traffic, never a sort of it (the plans of the statements the
// repositories build and run, as in bulk-plans.e2e-spec.ts). Each case: the statement and the index
// it must use ('PRIMARY' for the primary key).
const NOW = Date.now();
const IDS = ['msg_a', 'msg_b'];
const CASES: [string, Stmt, string][] = [
  [
    'expired messages of an account',
    m.expiredMessages(accountIdOf('acc_plan_1'), 0, NOW, 500),
    'ix_messages_account_updated',
  ],
  ['expired messages of every account', m.expiredMessagesAnyAccount(0, NOW, 2000), 'ix_messages_counted_status'],
  ['lock of the candidates', m.lockMessages(IDS, NOW, isMysqlRun()), 'PRIMARY'],
  ['delete of their history', m.deleteHistory(IDS), 'PRIMARY'],
  ['delete of their provider ids', m.deleteRefs(IDS), 'ix_message_provider_refs_message'],
  ['delete of their sandbox deliveries', sbx.deleteOfMessages(IDS), 'uq_sandbox_deliveries_message'],
  ['delete of the messages', m.deleteMessages(IDS), 'PRIMARY'],
  [
    'settled jobs of an account',
    b.expiredJobs(accountIdOf('acc_plan_1'), idAt('bulk', NOW), NOW, 20),
    'ix_bulk_jobs_account',
  ],
  ['a row still to send', b.liveRow('bulk_x'), 'ix_bulk_rows_status'],
  ['first row of a job', b.firstRow('bulk_x'), 'PRIMARY'],
  ['delete of a range of rows', b.deleteRows('bulk_x', 0, 500), 'PRIMARY'],
  ['delete of a job', b.deleteJob('bulk_x'), 'PRIMARY'],
  ['inbound SMS of an account', sms.expired(accountIdOf('acc_plan_1'), NOW, 500), 'ix_inbound_sms_account_received'],
  ['inbound SMS of no account', sms.expired(null, NOW, 500), 'ix_inbound_sms_account_received'],
  [
    'web-session inbound of an account',
    web.expired(accountIdOf('acc_plan_1'), idAt('win', NOW), 500),
    'ix_web_inbound_account',
  ],
  ['sandbox deliveries', sbx.expired(idAt('sbx', NOW), 500), 'PRIMARY'],
  ['settled messages not counted', u.uncounted(1000, isMysqlRun()), 'ix_messages_counted_status'],
  ['mark counted', u.markCounted(IDS, NOW), 'PRIMARY'],
  ['scheduled messages due, every account', lease.due(NOW, 50), 'ix_messages_counted_status'],
  // (Or the range of queued messages of no job, ix_messages_bulk_status: the planner weighs them.)
  [
    'single sends left queued, every account',
    lease.staleQueued(NOW, NOW, 50),
    'ix_messages_counted_status|ix_messages_bulk_status',
  ],
  ['usage of an account', u.range(accountIdOf('acc_plan_1'), '2026-01-01', '2026-12-31'), 'PRIMARY'],
];

describe('Retention query plans (e2e)', () => {
  let t: TestApp;
  const ds = () => t.app.get(DataSource);

  async function plan(stmt: Stmt): Promise<{ keys: string[]; types: string[]; extra: string; sqlite: string }> {
    if (isMysqlRun()) {
      const rows: Record<string, unknown>[] = await ds().query(`EXPLAIN ${stmt.sql}`, stmt.params);
      return {
        keys: rows.map((p) => String(p.key)),
        types: rows.map((p) => String(p.type)),
        extra: rows.map((p) => String(p.Extra ?? '')).join(' | '),
        sqlite: '',
      };
    }
    const rows: { detail: string }[] = await ds().query(`EXPLAIN QUERY PLAN ${stmt.sql}`, stmt.params);
    return { keys: [], types: [], extra: '', sqlite: rows.map((p) => p.detail).join(' | ') };
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { SCHEDULERS_ENABLED: 'false' } });
    // A few thousand messages over many accounts, most counted and delivered: the shape of a real table.
    const values: string[] = [];
    const params: (string | number | null)[] = [];
    for (let i = 0; i < 3000; i++) {
      const at = NOW - (3000 - i) * 60_000;
      values.push(`(?, ?, ?, 'local_sms', 'free_text', '+966501234567', ?, 5, 'wallet', ?, ?, ?, 0)`);
      // A third of them sent by one of 30 bulk jobs.
      const job = i % 3 ? null : `bulk_m${i % 30}`;
      params.push(derivedId('msg', at, String(i)), `acc_plan_${i % 50}`, job, i % 10 ? 'delivered' : 'queued', at, at);
      params.push(i % 10 ? at + 1000 : null);
    }
    for (let i = 0; i < values.length; i += 500)
      await ds().query(
        `INSERT INTO messages (id, account_id, bulk_job_id, channel, message_type, recipient, status, cost, paid_from, created_at, updated_at, usage_counted_at, attempts) VALUES ${values.slice(i, i + 500).join(', ')}`,
        params.slice(i * 7, (i + 500) * 7),
      );
    const insert = async (table: string, cols: string, rows: (string | number)[][]) => {
      for (let i = 0; i < rows.length; i += 200) {
        const chunk = rows.slice(i, i + 200);
        const tuple = `(${chunk[0].map(() => '?').join(', ')})`;
        await ds().query(`INSERT INTO ${table} (${cols}) VALUES ${chunk.map(() => tuple).join(', ')}`, chunk.flat());
      }
    };
    const n = (k: number) => Array.from({ length: k }, (_, i) => i);
    await insert(
      'accounts',
      'id, name, currency, created_at, updated_at',
      n(50).map((i) => [`acc_plan_${i}`, 'plans', 'SAR', NOW, NOW]),
    );
    await insert(
      'web_sessions',
      'id, account_id, name, kind, provider, provider_session, status, created_at, updated_at',
      [['wss_x', 'acc_plan_0', 'plans', 'web', 'waha', 'x', 'working', NOW, NOW]],
    );
    await insert(
      'bulk_jobs',
      'id, account_id, status, messages_per_second, created_at, updated_at',
      n(800).map((i) => [
        derivedId('bulk', NOW - i * 60_000, String(i)),
        `acc_plan_${i % 50}`,
        'completed',
        10,
        NOW,
        NOW,
      ]),
    );
    await insert(
      'bulk_rows',
      'job_id, idx, status, payload, attempt',
      n(2000).map((i) => [`bulk_${i % 4 === 0 ? 'x' : `y${i % 4}`}`, i, i % 3 ? 'sent' : 'pending', '{}', 0]),
    );
    await insert(
      'web_inbound_messages',
      'id, account_id, session_id, remote_message_id, remote_chat_id, status, created_at',
      n(2000).map((i) => [
        derivedId('win', NOW - i * 1000, String(i)),
        `acc_plan_${i % 50}`,
        'wss_x',
        `r${i}`,
        'c',
        'queued',
        NOW,
      ]),
    );
    if (isMysqlRun())
      await ds().query(
        'ANALYZE TABLE messages, bulk_jobs, bulk_rows, inbound_sms, sandbox_deliveries, web_inbound_messages',
      );
    else await ds().query('ANALYZE');
  });
  afterAll(async () => {
    await t.close();
  });

  /** `index`: its name, or names joined by `|` when either range is a good plan (the planner weighs them). */
  function expectRange(p: Awaited<ReturnType<typeof plan>>, index: string): void {
    if (isMysqlRun()) {
      // (MIN over a key prefix is answered from the index end before execution: no key shown.)
      if (!/Select tables optimized away/.test(p.extra)) expect(p.keys[0]).toMatch(new RegExp(`^(${index})$`));
      expect(p.types).not.toContain('ALL');
      expect(p.extra).not.toMatch(/filesort|temporary/i);
    } else {
      const want =
        index === 'PRIMARY'
          ? /USING (INTEGER )?PRIMARY KEY|USING (COVERING )?INDEX sqlite_autoindex_/
          : new RegExp(`USING (COVERING )?INDEX (${index})\\b`);
      expect(p.sqlite).toMatch(want);
      expect(p.sqlite).not.toMatch(/^SCAN|\| SCAN|TEMP B-TREE/);
    }
  }

  it.each(CASES)('%s reads its index range, never a scan or a sort', async (_name, stmt, index) => {
    expectRange(await plan(stmt), index);
  });

  // GET /messages: newest first by (created_at, id), the cursor a range on both, any filter on the rows read.
  const after = { id: derivedId('msg', NOW - 3_600_000, 'x'), createdAt: NOW - 3_600_000 };
  const LIST: [string, ListFilter, string][] = [
    ['first page', { limit: 51 }, 'ix_messages_account_created'],
    ['next page', { after, limit: 51 }, 'ix_messages_account_created'],
    ['of one status', { status: 'delivered', after, limit: 51 }, 'ix_messages_account_created'],
    ['of one channel', { channel: 'local_sms', limit: 51 }, 'ix_messages_account_created'],
    // (A job's range, or the account's when it is the shorter one.)
    ["of one job's", { bulkJobId: 'bulk_m3', after, limit: 51 }, 'ix_messages_bulk|ix_messages_account_created'],
    ["of one job's, first page", { bulkJobId: 'bulk_m3', limit: 51 }, 'ix_messages_bulk|ix_messages_account_created'],
    ['by change, polled', { order: 'updated', updatedSince: NOW - 60_000, limit: 51 }, 'ix_messages_account_updated'],
  ];
  it.each(LIST)('the message log listed: %s reads its index range, never a scan or a sort', async (_n, f, index) => {
    expectRange(await plan(t.app.get(MessageLogRepository).listStatement(accountIdOf('acc_plan_3'), f)), index);
  });

  it("the gauges' oldest key of each table is one end of an index", async () => {
    for (const table of PURGED_TABLES) {
      const p = await plan(OLDEST[table]);
      // (MariaDB answers MIN of an index end from the index alone: optimized away, or no row when empty.)
      if (isMysqlRun()) expect(p.extra).toMatch(/Select tables optimized away|Using index|No matching min\/max row/);
      else expect(p.sqlite).toMatch(/SEARCH .* USING (COVERING )?INDEX|USING (INTEGER )?PRIMARY KEY/);
    }
  });
});
