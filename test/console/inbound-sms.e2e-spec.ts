import { INBOUND_SMS_INTAKE, InboundSmsIntake } from '../../src/providers/provider-events';
import { approvedSender } from '../support/inbound-helpers';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';

describe('Console: inbound SMS (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Inbound Co' });
    await b.signIn(acc.key);
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });
  afterEach(() => {
    expect(b.outside).toEqual([]);
    expect(b.pageErrors).toEqual([]);
    expect(b.contractProblems).toEqual([]);
  });

  it('lists the SMS sent to the account’s sender names, joined parts shown as one, filtered by number', async () => {
    await approvedSender(t, acc, 'InShop');
    const intake = t.app.get<InboundSmsIntake>(INBOUND_SMS_INTAKE);
    const at = Date.now();
    await intake.accept({
      from: '+966500000501',
      to: 'InShop',
      text: 'Is it open today?',
      providerMessageId: null,
      at,
    });
    for (const [seq, text] of [
      [2, 'من جزأين'],
      [1, 'رسالة طويلة '],
    ] as const)
      await intake.accept({
        from: '+966500000502',
        to: 'InShop',
        text,
        providerMessageId: null,
        at: at + 1,
        part: { ref: 'u8:5', total: 2, seq },
      });
    await b.open('/inbound-sms');
    const table = b.page.getByRole('region', { name: 'Inbound SMS' });
    await table.getByText('رسالة طويلة من جزأين').waitFor();
    await table.getByText('Is it open today?').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    await table.getByText('2 of 2').waitFor();
    await b.shoot('inbound-sms', [WIDE, NARROW]);

    await b.page.getByLabel('From').fill('+966500000501');
    await table.getByText('رسالة طويلة من جزأين').waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(1);
    await b.page.getByLabel('Sender name').fill('NoSuch');
    await b.page.getByText('No inbound SMS.').waitFor();
  });
});
