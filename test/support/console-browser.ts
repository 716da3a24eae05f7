import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { loadCommittedContract } from './openapi-contract';

export const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps trying to reach Google's services.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = join(__dirname, '..', '..', '.ci', 'out', 'console');
export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 390, height: 844 };

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Requests to anything but the app under test (the console must work offline). */
  outside: string[];
  /** Console errors and CSP violations reported by the page. */
  pageErrors: string[];
  /** API answers the browser got that the committed OpenAPI documents do not allow. */
  contractProblems: string[];
  /** What the page keeps in Web Storage (the console may use sessionStorage only). */
  storage(): Promise<{ session: Record<string, string>; local: number }>;
  /** Signs in on the sign-in page with an API key and waits for the overview. */
  signIn(key: string): Promise<void>;
  /** Opens a console path (`/`, `/messages`...) and waits for its heading. */
  open(path: string): Promise<void>;
  /** Full-page screenshot `.ci/out/console/<name>-<width>.png`, at the given widths (then back to wide). */
  shoot(name: string, widths?: { width: number; height: number }[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Debian's Chromium driven by playwright-core (no browser download): headless, with a fresh profile
 * directory, every request outside the app recorded and refused, every API answer checked against the
 * OpenAPI documents (supertest's hook does not see browser calls).
 */
export async function openConsole(appUrl: string, opts: { hostName?: string } = {}): Promise<ConsoleBrowser> {
  // `hostName`: the browser reaches the app (on 127.0.0.1) by that name, as over a LAN. Plain HTTP to a
  // host that is not loopback is not a secure context (no crypto.randomUUID, no clipboard API).
  const baseUrl = opts.hostName ? appUrl.replace('//127.0.0.1:', `//${opts.hostName}:`) : appUrl;
  const args = opts.hostName ? [...FLAGS, `--host-resolver-rules=MAP ${opts.hostName} 127.0.0.1`] : FLAGS;
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args,
    viewport: WIDE,
  });
  const outside: string[] = [];
  const pageErrors: string[] = [];
  const contractProblems: string[] = [];
  const contract = loadCommittedContract();
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${baseUrl}/`)) return route.continue();
    outside.push(url);
    return route.abort('blockedbyclient');
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Fail within the test's own timeout, with Playwright's message, rather than at Jest's 60 s.
  page.setDefaultTimeout(15_000);
  // An API error answer is expected (the page shows it); Chromium logs it as a failed resource load.
  page.on(
    'console',
    (m) =>
      m.type() === 'error' &&
      !/^Failed to load resource: the server responded/.test(m.text()) &&
      pageErrors.push(m.text()),
  );
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('response', async (res) => {
    const url = new URL(res.url());
    if (!url.pathname.startsWith('/api/') && !url.pathname.startsWith('/admin/')) return;
    let body: unknown = null;
    try {
      if ((res.headers()['content-type'] ?? '').includes('json')) body = await res.json();
    } catch {
      // The page navigated away before the body was read: nothing to check.
      return;
    }
    const problem = contract.check(
      res.request().method(),
      url.pathname + url.search,
      res.status(),
      res.headers()['content-type'],
      body,
    );
    if (problem) contractProblems.push(problem);
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    outside,
    pageErrors,
    contractProblems,
    // A string expression: the test code is type-checked without the DOM library.
    storage: () =>
      page.evaluate<{ session: Record<string, string>; local: number }>(
        '({ session: { ...sessionStorage }, local: localStorage.length })',
      ),
    async signIn(key) {
      await page.goto(`${baseUrl}/console/`);
      await page.getByLabel('API key', { exact: true }).fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: /^Overview/ }).waitFor();
    },
    async open(path) {
      await page.goto(`${baseUrl}/console${path}`);
      await page.locator('main h1').first().waitFor();
    },
    async shoot(name, widths = [WIDE]) {
      for (const size of widths) {
        await page.setViewportSize(size);
        // Tables scrolled sideways by an earlier click show from their first column again.
        await page.evaluate(
          "document.querySelectorAll('.table-box').forEach((e) => { e.scrollLeft = 0; e.scrollTop = 0; })",
        );
        // Readable at this width: the page itself never scrolls sideways (wide tables scroll in their box).
        const overflow = await page.evaluate<number>(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        if (overflow > 0) throw new Error(`${name} at ${size.width} px scrolls sideways by ${overflow} px`);
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.width}.png`), fullPage: true });
      }
      await page.setViewportSize(WIDE);
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
