import { SmppFake } from '../providers-fakes/smpp-fake';
import { createTestApp, TestAccount, TestApp } from './app';

export const CREDS = { systemId: 'esme1', password: 'pw123' };

/** The app on the SMPP fake (local_sms over SMPP), with fast webhook delivery. */
export async function smppApp(): Promise<{ t: TestApp; smsc: SmppFake }> {
  const smsc = await new SmppFake(CREDS).start();
  const t = await createTestApp({
    env: {
      PROVIDER_LOCAL_SMS: 'smpp',
      PROVIDER_TIMEOUT_MS: '2000',
      SMPP_URL: smsc.url,
      SMPP_SYSTEM_ID: CREDS.systemId,
      SMPP_PASSWORD: CREDS.password,
      WEBHOOK_DELIVERY_INTERVAL_MS: '30',
    },
  });
  return { t, smsc };
}

/** An approved sender name of the account; resolves to its id. */
export async function approvedSender(t: TestApp, a: TestAccount, name: string): Promise<string> {
  const created = await t.http().post('/api/v2/sms-senders').set('X-API-Key', a.key).send({ name });
  if (created.status !== 201) throw new Error(`sender ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.smsSender.id as string;
  await t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({}).expect(200);
  return id;
}

let nameSeq = 0;
/** A sender name no other test of the run uses (at most 11 characters). */
export const uniqueName = (prefix: string): string =>
  `${prefix}${(Date.now() % 1e5).toString(36)}${(nameSeq++).toString(36)}`.slice(0, 11);

let numberSeq = 0;
/** A phone number (digits, as an SMSC writes it) no other test of the run uses. */
export const uniqueNumber = (): string =>
  `9665${String(Date.now() % 1e6).padStart(6, '0')}${String(numberSeq++ % 100).padStart(2, '0')}`;
