import { startupBanner } from './startup-banner';

describe(startupBanner.name, () => {
  const base = {
    url: 'http://localhost:3000',
    database: 'sqlite',
    adminEnabled: true,
    demo: null,
    earlierDemoKeyFile: null,
  };

  it('a fresh demo account: its key and the URL are the last lines', () => {
    const lines = startupBanner({
      ...base,
      demo: { accountId: 'acc_1', key: 'msk_x', keyFile: 'data/demo-api-key.txt' },
    });
    expect(lines.slice(-2)).toEqual([
      '  msk_x',
      'Try it: curl -H "X-API-Key: msk_x" http://localhost:3000/api/v2/account',
    ]);
    expect(lines.join('\n')).toContain('also saved to data/demo-api-key.txt, mode 0600');
  });

  it('names the developer console URL', () => {
    expect(startupBanner(base)).toContain('Developer console: http://localhost:3000/console (sign in with an API key)');
  });

  it('key commands put $ADMIN_TOKEN in double quotes (the shell expands it), never single quotes', () => {
    for (const lines of [
      startupBanner(base),
      startupBanner({ ...base, demo: { accountId: 'acc_1', key: 'msk_x', keyFile: null } }),
    ]) {
      const curl = lines.filter((l) => l.includes('$ADMIN_TOKEN'));
      expect(curl).toHaveLength(1);
      expect(curl[0]).toContain('-H "Authorization: Bearer $ADMIN_TOKEN"');
      expect(curl[0]).not.toMatch(/'[^']*\$ADMIN_TOKEN/);
    }
  });

  it('without ADMIN_TOKEN it says how to enable the admin API; a later start points to the saved demo key', () => {
    const lines = startupBanner({ ...base, adminEnabled: false, earlierDemoKeyFile: 'data/demo-api-key.txt' });
    expect(lines.join('\n')).toContain('start the server with ADMIN_TOKEN=<16+ characters>');
    expect(lines[lines.length - 1]).toBe(
      'Try it: curl -H "X-API-Key: $(cat data/demo-api-key.txt)" http://localhost:3000/api/v2/account',
    );
  });
});
