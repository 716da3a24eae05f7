import { DataSource } from 'typeorm';
import { LedgerService } from '../../src/accounts/ledger.service';
import { MessageLogRepository } from '../../src/messaging/message-log.repository';
import { MessageValidator } from '../../src/messaging/validation/message-validator';
import { BULK_TEST_ENV } from './bulk-helpers';
import { SmtpFake } from '../providers-fakes/smtp-fake';
import { createTestApp, TestApp } from './app';
import { accountIdOf } from '../../src/common/account-id';
import { ProviderGateway, toOutbound } from '../../src/messaging/provider-gateway';

const CREDS = { user: 'mailer', pass: 's3cret' };

/**
 * Apps sending email through a real SMTP server (SmtpFake), which, like SMPP, the Cloud API and the
 * Bot API, cannot be asked afterwards whether it received a message: for the suites about crashes
 * and lost answers. Registers the suite's hooks (one server; apps closed after each test, the
 * database kept for the ones a test restarted on it).
 */
export function smtpApps() {
  const apps: TestApp[] = [];
  const h = {
    smtp: null as unknown as SmtpFake,
    env: (extra: Record<string, string> = {}) => ({
      ...BULK_TEST_ENV,
      PROVIDER_EMAIL: 'smtp',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(h.smtp.port),
      SMTP_USER: CREDS.user,
      SMTP_PASS: CREDS.pass,
      SMTP_FROM: 'Shop <no-reply@shop.example.com>',
      SCHEDULED_SEND_TICK_MS: '50',
      ...extra,
    }),
    start: async (extra: Record<string, string>, databaseUrl?: string): Promise<TestApp> => {
      const app = await createTestApp({ env: h.env(extra), databaseUrl });
      apps.push(app);
      return app;
    },
    /** Closes `app` as a crash would leave the database: rows as they are. */
    stop: async (app: TestApp): Promise<void> => {
      apps.splice(apps.indexOf(app), 1);
      await app.close({ keepDatabase: true });
    },
    email: (to: string, extra: Record<string, unknown> = {}) => ({
      to,
      channel: 'email',
      messageType: 'free_text',
      content: { subject: 'Hi', text: `For ${to}` },
      ...extra,
    }),
    /** How many times the SMTP server received each of our message ids. */
    receivedCounts: (): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const m of h.smtp.received) {
        const ref = /X-Message-Ref: (\S+)/.exec(m.raw)?.[1] ?? '?';
        counts[ref] = (counts[ref] ?? 0) + 1;
      }
      return counts;
    },
    message: async (t: TestApp, key: string, id: string) =>
      (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', key)).body.data,
    wallet: async (t: TestApp, key: string) =>
      (await t.http().get('/api/v2/account').set('X-API-Key', key)).body.data.walletBalance as number,
    /** As a dispatcher leaves a bulk row's message: validated, paid and logged `queued` under `messageId`. */
    payAndLog: async (t: TestApp, accountId: string, jobId: string, idx: number, messageId: string) => {
      const [{ payload }]: { payload: string }[] = await t.app
        .get(DataSource)
        .query('SELECT payload FROM bulk_rows WHERE job_id = ? AND idx = ?', [jobId, idx]);
      const validator = t.app.get(MessageValidator);
      const msg = await validator.validate(validator.createContext(accountIdOf(accountId)), JSON.parse(payload), {
        bulkRow: true,
      });
      const funding = await t.app.get(LedgerService).debit(accountId, 'email');
      const origin = { bulkJobId: jobId, rowIndex: idx };
      await t.app
        .get(MessageLogRepository)
        .insert(
          [{ id: messageId, accountId: accountIdOf(accountId), msg, funding, status: 'queued', origin }],
          Date.now(),
        );
      return { msg, funding, origin };
    },
    /** A logged message (payAndLog's) taken by the provider, then marked sent under `providerMessageId`. */
    sendAndMarkSent: async (
      t: TestApp,
      accountId: string,
      messageId: string,
      logged: { msg: Parameters<typeof toOutbound>[2]; origin: Parameters<typeof toOutbound>[3] },
      providerMessageId: string,
    ) => {
      await t.app.get(ProviderGateway).send(toOutbound(messageId, accountIdOf(accountId), logged.msg, logged.origin));
      const marks = [{ accountId: accountIdOf(accountId), id: messageId, providerMessageId }];
      expect((await t.app.get(MessageLogRepository).markSent(marks, Date.now())).marked).toBe(1);
    },
  };

  beforeAll(async () => {
    h.smtp = await new SmtpFake(CREDS).start();
  });
  beforeEach(() => {
    h.smtp.received.length = 0;
    h.smtp.slowMs = 0;
  });
  afterEach(async () => {
    while (apps.length > 1) await apps.shift()!.close({ keepDatabase: true });
    if (apps.length) await apps.shift()!.close();
  });
  afterAll(() => h.smtp.stop());
  return h;
}
