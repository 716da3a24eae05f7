import { TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { createVerificationApp, verificationHelpers } from '../support/verification-helpers';

const DAY = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

describe('Console: overview charts and fraud blocks (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;
  // The app's Clock is moved back a day for one send (the chart's days are UTC days of sending).
  let shiftMs = 0;
  const requests: string[] = [];
  const { nextPhone, check, sendOk } = verificationHelpers(() => t);
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
    await b.page.getByText('Show as a table').click();
    const row = b.page.getByRole('row', { name: new RegExp(today) });
    await expect(row.textContent()).resolves.toBe(`${today}32`);

    await b.page.setViewportSize(NARROW);
    expect(await b.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await b.shoot('overview-charts', [WIDE, NARROW]);
  });

  it('fraud blocks: the section is hidden while the service has no such route (404)', async () => {
    await b.open('/');
    await b.page.getByRole('img', { name: /Verification codes sent and verified/ }).waitFor();
    await b.page.waitForLoadState('networkidle');
    expect(requests.some((u) => u.includes('/api/v2/verification/fraud-blocks'))).toBe(true);
    expect(await b.page.locator('#fraud-blocks').count()).toBe(0);
  });

  it('a member key without messages:read sees neither the chart nor the blocks (403)', async () => {
    // api_keys:read: the console signs in with GET /account.
    const creator = await t.memberKey(acc.id, ['api_keys:read', 'messages:create']);
    await b.page.getByRole('button', { name: 'Sign out' }).click();
    await b.signIn(creator);
    await b.page.waitForLoadState('networkidle');
    expect(await b.page.locator('#verification-chart').count()).toBe(0);
    expect(await b.page.locator('#fraud-blocks').count()).toBe(0);
    await b.page.getByRole('button', { name: 'Sign out' }).click();
  });

  // STUBBED CONTRACT: GET/DELETE /api/v2/verification/fraud-blocks are built on another branch. Until
  // they land, the browser answers them from the agreed contract; then this test should drive the real
  // routes (a pumping block created through real sends) and drop the stub.
  it('fraud blocks (stubbed contract until the route lands): lists blocks, Lift only on active account blocks', async () => {
    const block = {
      id: 'fbk_1',
      prefix: '+88213',
      scope: 'account',
      reason: 'low_conversion',
      sends: 40,
      verified: 1,
      since: '2026-01-01T10:00:00.000Z',
      until: '2026-01-02T10:00:00.000Z',
      liftedAt: null,
      active: true,
    };
    const platform = { ...block, id: 'fbk_2', prefix: '+6799', scope: 'platform', reason: 'velocity' };
    let lifted = false;
    const deletes: string[] = [];
    await b.page.route('**/api/v2/verification/fraud-blocks**', async (route) => {
      const req = route.request();
      if (req.method() === 'DELETE') {
        deletes.push(new URL(req.url()).pathname);
        lifted = true;
        const body = {
          success: true,
          data: { block: { ...block, active: false, liftedAt: new Date().toISOString() } },
        };
        return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
      }
      const current = lifted ? { ...block, active: false, liftedAt: '2026-01-01T11:00:00.000Z' } : block;
      const body = { success: true, data: { blocks: [current, platform], nextCursor: null, hasMore: false } };
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    });
    try {
      await b.signIn(acc.key);
      const section = b.page.locator('#fraud-blocks');
      await section.getByRole('cell', { name: '+88213', exact: true }).waitFor();
      expect(await section.getByRole('row').count()).toBe(3);
      const lift = section.getByRole('button', { name: 'Lift the block on +88213' });
      expect(await section.getByRole('button', { name: /Lift/ }).count()).toBe(1);
      await b.page.setViewportSize(NARROW);
      expect(await b.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await b.page.setViewportSize(WIDE);
      await lift.click();
      await section.getByText('lifted').waitFor();
      expect(deletes).toEqual(['/api/v2/verification/fraud-blocks/fbk_1']);
      expect(await section.getByRole('button', { name: /Lift/ }).count()).toBe(0);
    } finally {
      await b.page.unroute('**/api/v2/verification/fraud-blocks**');
    }
  });
});
