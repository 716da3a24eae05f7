import { UsageRollup } from '../../src/privacy/usage/usage-rollup';
import { TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { createVerificationApp, verificationHelpers } from '../support/verification-helpers';
import { saNumber } from '../fraud/fraud-helpers';

const DAY = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

describe('Console: overview charts and fraud blocks (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;
  // The app's Clock is moved back a day for one send (the chart's days are UTC days of sending).
  let shiftMs = 0;
  const requests: string[] = [];
  const { nextPhone, check, send, sendOk } = verificationHelpers(() => t);
  const today = dayOf(Date.now());
  const yesterday = dayOf(Date.parse(today) - DAY);

  beforeAll(async () => {
    t = await createVerificationApp(() => shiftMs);
    b = await openConsole(t.baseUrl);
    b.page.on('request', (r) => requests.push(r.url()));
    acc = await t.createAccount({ name: 'Chart Co' });
    shiftMs = Date.parse(yesterday) + 12 * 3_600_000 - Date.now();
    await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
    shiftMs = 0;
    for (let i = 0; i < 3; i++) {
      const v = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      if (i < 2) await check(acc, v.id, v.code);
    }
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });
  afterEach(() => {
    expect(b.outside).toEqual([]);
    expect(requests.filter((u) => !u.startsWith(`${t.baseUrl}/`))).toEqual([]);
    expect(b.pageErrors).toEqual([]);
    expect(b.contractProblems).toEqual([]);
  });

  it('shows 14 days of codes sent vs verified as an SVG chart, readable at 390 px, from the origin only', async () => {
    await b.signIn(acc.key);
    const chart = b.page.getByRole('img', { name: /Verification codes sent and verified per day, last 14 days/ });
    await chart.waitFor();
    expect(await chart.locator('rect[data-series="sent"]').count()).toBe(14);
    expect(await chart.locator('rect[data-series="verified"]').count()).toBe(14);
    const bar = (series: string, date: string) => chart.locator(`rect[data-series="${series}"][data-date="${date}"]`);
    expect(await bar('sent', today).locator('title').textContent()).toBe(`${today}: 3 sent`);
    expect(await bar('verified', today).locator('title').textContent()).toBe(`${today}: 2 verified`);
    expect(await bar('sent', yesterday).getAttribute('data-value')).toBe('1');
    expect(await bar('verified', yesterday).getAttribute('data-value')).toBe('0');
    // Taller bar for more codes; a day without codes draws nothing.
    const height = async (series: string, date: string) => Number(await bar(series, date).getAttribute('height'));
    expect(await height('sent', today)).toBeGreaterThan(await height('verified', today));
    expect(await height('sent', dayOf(Date.parse(today) - 5 * DAY))).toBe(0);
    await expect(chart.locator('desc').textContent()).resolves.toContain('4 sent, 2 verified');

    // The same numbers as a table (screen readers, exact values).
    await b.page.locator('#verification-chart').getByText('Show as a table').click();
    const row = b.page.getByRole('row', { name: new RegExp(today) });
    await expect(row.textContent()).resolves.toBe(`${today}32`);

    await b.page.setViewportSize(NARROW);
    expect(await b.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await b.shoot('overview-charts', [WIDE, NARROW]);
  });

  it('shows 30 days of messages paid (GET /account/usage) as an SVG chart, readable at 390 px', async () => {
    // The codes sent above are messages: counted into usage by the roll-up (its tick, run now).
    await t.app.get(UsageRollup).tick();
    await b.open('/');
    const chart = b.page.getByRole('img', { name: /Messages and SMS parts paid per day, last 30 days/ });
    await chart.waitFor();
    expect(await chart.locator('rect[data-series="messages"]').count()).toBe(30);
    const bar = (date: string) => chart.locator(`rect[data-series="messages"][data-date="${date}"]`);
    expect(await bar(today).getAttribute('data-value')).toBe('3');
    expect(await bar(yesterday).getAttribute('data-value')).toBe('1');
    await expect(chart.locator('desc').textContent()).resolves.toContain('4 messages');
    await b.page.setViewportSize(NARROW);
    expect(await b.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await b.page.setViewportSize(WIDE);
  });

  it('fraud blocks: an account without any shows that nothing is blocked', async () => {
    await b.open('/');
    await b.page.getByRole('img', { name: /Verification codes sent and verified/ }).waitFor();
    await b.page.locator('#fraud-blocks').getByText('No number prefix is blocked.').waitFor();
  });

  it('a member key without messages:read sees neither the chart nor the blocks (403)', async () => {
    // api_keys:read: the console signs in with GET /account.
    const creator = await t.memberKey(acc.id, ['api_keys:read', 'messages:create']);
    await b.page.getByRole('button', { name: 'Sign out' }).click();
    // The sign-in does not navigate, so the page's load states are already reached: wait for the three
    // answers themselves (403 each), then for their sections to leave the page.
    const answers = ['/api/v2/verification/stats', '/api/v2/verification/fraud-blocks', '/api/v2/account/usage'].map(
      (path) => b.page.waitForResponse((r) => new URL(r.url()).pathname === path),
    );
    await b.signIn(creator);
    expect(await Promise.all(answers.map(async (a) => (await a).status()))).toEqual([403, 403, 403]);
    for (const id of ['#verification-chart', '#fraud-blocks', '#usage-chart'])
      await b.page.locator(id).waitFor({ state: 'detached' });
    await b.page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('fraud blocks: lists a block raised by real pumping sends, Lift ends it', async () => {
    const owner = await t.createAccount({ name: 'Pumped Co' });
    // 20 codes never checked (FRAUD_MIN_SENDS), then the 21st to the prefix is refused and raises the block.
    for (let i = 1; i <= 20; i++)
      expect((await send(owner, { to: saNumber('5012', i), channel: 'local_sms' })).status).toBe(201);
    expect((await send(owner, { to: saNumber('5012', 21), channel: 'local_sms' })).status).toBe(429);
    await b.signIn(owner.key);
    const section = b.page.locator('#fraud-blocks');
    await section.getByRole('cell', { name: '+9665012', exact: true }).waitFor();
    expect(await section.getByRole('row').count()).toBe(2);
    await expect(section.getByRole('row').nth(1).textContent()).resolves.toContain('20 / 0');
    await b.page.setViewportSize(NARROW);
    expect(await b.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await b.page.setViewportSize(WIDE);
    await section.getByRole('button', { name: 'Lift the block on +9665012' }).click();
    await section.getByText('lifted').waitFor();
    expect(await section.getByRole('button', { name: /Lift/ }).count()).toBe(0);
    const listed = await t.http().get('/api/v2/verification/fraud-blocks').set('X-API-Key', owner.key);
    expect(listed.body.data.blocks).toEqual([
      expect.objectContaining({ prefix: '+9665012', active: false, endReason: 'lifted' }),
    ]);
    expect((await send(owner, { to: saNumber('5012', 22), channel: 'local_sms' })).status).toBe(201);
  });
});
