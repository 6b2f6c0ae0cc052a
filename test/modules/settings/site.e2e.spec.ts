// /site: the active site's configuration. Every enum and clear rule of PATCH, URLs, colours, the
// theme whitelist, the CSS cap, domains (DOMAIN_TAKEN, and resolving the site by its Host), rights,
// isolation and the site.configured events.
import { describe, expect, it } from 'vitest';
import { auditActions, createMember, createRole } from '../identity/support/identity.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { auditedActions, caller, createNamedSite, dataOf, expectRefused, requestWithHost, type Caller } from './support.ts';

const service = await startTestServiceForFile();

function newSiteView(siteId: string, name = siteId) {
  return {
    id: siteId,
    name,
    displayTitle: null,
    siteUrl: null,
    descriptor: null,
    domain: null,
    defaultLanguage: 'en',
    defaultAppearance: 'auto',
    defaultSaveAction: 'stay',
    branding: { logoUrl: null, faviconUrl: null, brandColor: null },
    themeOverrides: { light: {}, dark: {} },
    customCss: null,
    createdAt: expect.any(String),
  };
}

/** Runs refused writes and expects the site and its site.configured events to be as they were. */
async function expectNothingWritten(site: TestSite, admin: Caller, refusedWrites: () => Promise<unknown>): Promise<void> {
  const before = dataOf(await admin('GET', '/site'));
  const eventsBefore = await auditedActions(service, site, 'site.configured');
  await refusedWrites();
  expect(dataOf(await admin('GET', '/site'))).toEqual(before);
  expect(await auditedActions(service, site, 'site.configured')).toEqual(eventsBefore);
}

/** The site's domain for this run (site ids are unique, and valid host labels). */
const domainOf = (site: TestSite, prefix = 'news') => `${prefix}.${site.siteId}.example.com`;

describe('GET /site', () => {
  it("answers a new site's configuration to its members and API keys", async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const view = dataOf(await admin('GET', '/site'));
    expect(view).toEqual(newSiteView(site.siteId));
    expect(new Date(view.createdAt).toISOString()).toBe(view.createdAt);
    const member = await createMember(service, site);
    expect(dataOf(await caller(service, site, member.token)('GET', '/site'))).toEqual(view);
    const key = dataOf(await admin('POST', '/api-keys', { name: 'reader', roleId: await createRole(service, site.siteId) }), 201).key;
    expect(dataOf(await caller(service, site, key)('GET', '/site'))).toEqual(view);
    expectRefused(await caller(service, site, null)('GET', '/site'), 401, 'UNAUTHENTICATED');

    const named = await createNamedSite(service, 'Tin tức Sài Gòn');
    expect(dataOf(await caller(service, named)('GET', '/site'))).toEqual(newSiteView(named.siteId, 'Tin tức Sài Gòn'));
  });
});

describe('PATCH /site', () => {
  it('sets any subset of the fields, answers what GET answers, and clears nullable fields with an empty string', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const full = {
      name: 'The Daily',
      displayTitle: 'The Daily — News',
      siteUrl: 'https://daily.example.com/',
      descriptor: 'News every day',
      domain: domainOf(site),
      defaultLanguage: 'vi',
      defaultAppearance: 'dark',
      defaultSaveAction: 'create_new',
      branding: { logoUrl: 'https://cdn.example.com/logo.svg', faviconUrl: 'http://cdn.example.com/favicon.ico', brandColor: '#1a2b3c' },
      themeOverrides: { light: { primary: '222.2 47.4% 11.2%' }, dark: { background: '0 0% 0%' } },
      customCss: '.hero { color: red; }',
    };
    const patched = dataOf(await admin('PATCH', '/site', full));
    expect(patched).toEqual({ ...full, id: site.siteId, createdAt: expect.any(String) });
    expect(dataOf(await admin('GET', '/site'))).toEqual(patched);

    // A subset leaves the rest as it was.
    const renamed = dataOf(await admin('PATCH', '/site', { displayTitle: 'Daily' }));
    expect(renamed).toEqual({ ...patched, displayTitle: 'Daily' });

    const cleared = dataOf(await admin('PATCH', '/site', { displayTitle: '', siteUrl: '', descriptor: '', domain: '', customCss: '' }));
    expect(cleared).toEqual({ ...patched, displayTitle: null, siteUrl: null, descriptor: null, domain: null, customCss: null });
    const noBranding = dataOf(await admin('PATCH', '/site', { branding: { logoUrl: '', faviconUrl: '', brandColor: '' } }));
    expect(noBranding.branding).toEqual({ logoUrl: null, faviconUrl: null, brandColor: null });
    expect(dataOf(await admin('GET', '/site'))).toEqual(noBranding);

    // An empty body changes nothing.
    expect(dataOf(await admin('PATCH', '/site', {}))).toEqual(noBranding);
    expect(dataOf(await admin('GET', '/site'))).toEqual(noBranding);
  });

  it('refuses to clear name and defaultLanguage, unknown fields, and a bad field among good ones, storing nothing', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    await admin('PATCH', '/site', { displayTitle: 'Kept', name: 'Kept name' });
    await expectNothingWritten(site, admin, async () => {
      expectRefused(await admin('PATCH', '/site', { name: '' }), 400, 'VALIDATION_FAILED', ['body', 'name']);
      expectRefused(await admin('PATCH', '/site', { defaultLanguage: '' }), 400, 'VALIDATION_FAILED', ['body', 'defaultLanguage']);
      expectRefused(await admin('PATCH', '/site', { displayTitle: 'New', colour: 'red' }), 400, 'VALIDATION_FAILED', ['body', 'colour']);
      expectRefused(await admin('PATCH', '/site', { id: 'another-id' }), 400, 'VALIDATION_FAILED', ['body', 'id']);
      expectRefused(await admin('PATCH', '/site', { displayTitle: 'New', defaultAppearance: 'sepia' }), 400, 'VALIDATION_FAILED', ['body', 'defaultAppearance']);
      expectRefused(await admin('PATCH', '/site', { name: 'New', themeOverrides: { light: { primary: 'red' } } }), 400, 'VALIDATION_FAILED', [
        'body',
        'themeOverrides',
        'light',
        'primary',
      ]);
    });
  });

  it('enforces defaultAppearance and defaultSaveAction', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    for (const value of ['light', 'dark', 'auto']) expect(dataOf(await admin('PATCH', '/site', { defaultAppearance: value })).defaultAppearance).toBe(value);
    for (const value of ['return', 'create_new', 'stay']) expect(dataOf(await admin('PATCH', '/site', { defaultSaveAction: value })).defaultSaveAction).toBe(value);
    await admin('PATCH', '/site', { defaultAppearance: 'dark', defaultSaveAction: 'return' });
    await expectNothingWritten(site, admin, async () => {
      for (const value of ['sepia', 'Dark', '', null, 1]) {
        expectRefused(await admin('PATCH', '/site', { defaultAppearance: value }), 400, 'VALIDATION_FAILED', ['body', 'defaultAppearance']);
      }
      for (const value of ['create-new', 'STAY', '', null, true]) {
        expectRefused(await admin('PATCH', '/site', { defaultSaveAction: value }), 400, 'VALIDATION_FAILED', ['body', 'defaultSaveAction']);
      }
    });
    expect(dataOf(await admin('GET', '/site'))).toMatchObject({ defaultAppearance: 'dark', defaultSaveAction: 'return' });
  });

  it('takes http(s) URLs only, #rgb or #rrggbb colours, and merges branding', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const logoUrl = 'https://cdn.example.com/logo.png';
    expect(dataOf(await admin('PATCH', '/site', { branding: { logoUrl } })).branding).toEqual({ logoUrl, faviconUrl: null, brandColor: null });
    expect(dataOf(await admin('PATCH', '/site', { branding: { brandColor: '#112233' } })).branding).toEqual({ logoUrl, faviconUrl: null, brandColor: '#112233' });
    expect(dataOf(await admin('PATCH', '/site', { branding: { brandColor: '#abc', faviconUrl: 'http://x.example/f.ico' } })).branding).toEqual({
      logoUrl,
      faviconUrl: 'http://x.example/f.ico',
      brandColor: '#abc',
    });
    expect(dataOf(await admin('PATCH', '/site', { siteUrl: 'http://localhost:3000/preview' })).siteUrl).toBe('http://localhost:3000/preview');
    await expectNothingWritten(site, admin, async () => {
      for (const bad of ['javascript:alert(1)', 'ftp://x', 'data:text/html,<script>1</script>', 'not a url', '//cdn.example.com/x.png']) {
        expectRefused(await admin('PATCH', '/site', { siteUrl: bad }), 400, 'VALIDATION_FAILED', ['body', 'siteUrl']);
        expectRefused(await admin('PATCH', '/site', { branding: { logoUrl: bad } }), 400, 'VALIDATION_FAILED', ['body', 'branding', 'logoUrl']);
        expectRefused(await admin('PATCH', '/site', { branding: { faviconUrl: bad } }), 400, 'VALIDATION_FAILED', ['body', 'branding', 'faviconUrl']);
      }
      for (const bad of ['red', '112233', '#12', '#1234', '#12345', '#1122334', '#ggg', '#112233;}']) {
        expectRefused(await admin('PATCH', '/site', { branding: { brandColor: bad } }), 400, 'VALIDATION_FAILED', ['body', 'branding', 'brandColor']);
      }
    });
  });

  it('takes whitelisted theme tokens with H S% L% values; a mode given replaces its map, the other is kept', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const light = { background: '0 0% 100%', foreground: '222.2 84% 4.9%', 'card-foreground': '360 100% 0%', ring: '0 0% 0%' };
    expect(dataOf(await admin('PATCH', '/site', { themeOverrides: { light } })).themeOverrides).toEqual({ light, dark: {} });
    const dark = { primary: '210 40% 98%', 'muted-foreground': '215 20.2% 65.1%' };
    expect(dataOf(await admin('PATCH', '/site', { themeOverrides: { dark } })).themeOverrides).toEqual({ light, dark });
    const lighter = { destructive: '0 84.2% 60.2%' };
    expect(dataOf(await admin('PATCH', '/site', { themeOverrides: { light: lighter } })).themeOverrides).toEqual({ light: lighter, dark });
    expect(dataOf(await admin('PATCH', '/site', { themeOverrides: { dark: {} } })).themeOverrides).toEqual({ light: lighter, dark: {} });

    const tokens = [
      'background', 'foreground', 'card', 'card-foreground', 'popover', 'popover-foreground', 'primary', 'primary-foreground',
      'secondary', 'secondary-foreground', 'muted', 'muted-foreground', 'accent', 'accent-foreground', 'destructive',
      'destructive-foreground', 'border', 'input', 'ring',
    ];
    const every = Object.fromEntries(tokens.map((token, index) => [token, `${index * 18} ${index * 5}% ${100 - index * 5}%`]));
    expect(dataOf(await admin('PATCH', '/site', { themeOverrides: { light: every, dark: every } })).themeOverrides).toEqual({ light: every, dark: every });

    await expectNothingWritten(site, admin, async () => {
      for (const bad of ['red', '0 0 0', '1 2% 3% ; }', '361 50% 50%', '0 101% 50%', '0 50% 101%', '-1 50% 50%', '0 50% 50%;', 'hsl(0 50% 50%)', '', '0 50%  50% x']) {
        expectRefused(await admin('PATCH', '/site', { themeOverrides: { light: { primary: bad } } }), 400, 'VALIDATION_FAILED', ['body', 'themeOverrides', 'light', 'primary']);
      }
      for (const unknown of ['font-family', 'radius', 'background;color']) {
        expectRefused(await admin('PATCH', '/site', { themeOverrides: { dark: { [unknown]: '0 0% 0%' } } }), 400, 'VALIDATION_FAILED', ['body', 'themeOverrides', 'dark', unknown]);
      }
      // One bad token refuses the whole map, and the other mode given with it.
      expectRefused(await admin('PATCH', '/site', { themeOverrides: { light: { primary: '0 0% 0%' }, dark: { ring: 'blue' } } }), 400, 'VALIDATION_FAILED', [
        'body',
        'themeOverrides',
        'dark',
        'ring',
      ]);
    });
  });

  it('stores custom CSS verbatim up to 65,536 bytes', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const hostile = '</style><script>alert(1)</script><style>body{background:url("javascript:x")}';
    expect(dataOf(await admin('PATCH', '/site', { customCss: hostile })).customCss).toBe(hostile);
    expect(dataOf(await admin('GET', '/site')).customCss).toBe(hostile);
    const largest = `/*${'x'.repeat(65_532)}*/`;
    expect(dataOf(await admin('PATCH', '/site', { customCss: largest })).customCss).toBe(largest);
    await expectNothingWritten(site, admin, async () => {
      expectRefused(await admin('PATCH', '/site', { customCss: `${largest} ` }), 400, 'VALIDATION_FAILED', ['body', 'customCss']);
      // Bytes, not characters: é is two bytes in UTF-8.
      expectRefused(await admin('PATCH', '/site', { customCss: 'é'.repeat(32_769) }), 400, 'VALIDATION_FAILED', ['body', 'customCss']);
    });
  });
});

describe('the site domain', () => {
  it('is a lowercase hostname', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const domain = domainOf(site);
    expect(dataOf(await admin('PATCH', '/site', { domain: domain.toUpperCase() })).domain).toBe(domain);
    await expectNothingWritten(site, admin, async () => {
      for (const bad of ['not a host', 'http://x.com', 'x.com/path', 'x.com:8080', '-x.com', 'x..com']) {
        expectRefused(await admin('PATCH', '/site', { domain: bad }), 400, 'VALIDATION_FAILED', ['body', 'domain']);
      }
    });
  });

  it('belongs to one site: 409 DOMAIN_TAKEN for another, re-saving one own is fine, clearing frees it', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const admin = caller(service, site);
    const otherAdmin = caller(service, other);
    const domain = domainOf(site);
    await admin('PATCH', '/site', { domain });
    expect(dataOf(await admin('PATCH', '/site', { domain })).domain).toBe(domain);
    expect(dataOf(await admin('PATCH', '/site', { domain: domain.toUpperCase(), displayTitle: 'Same domain' })).domain).toBe(domain);

    await expectNothingWritten(other, otherAdmin, async () => {
      expectRefused(await otherAdmin('PATCH', '/site', { domain }), 409, 'DOMAIN_TAKEN', ['body', 'domain']);
      expectRefused(await otherAdmin('PATCH', '/site', { domain: domain.toUpperCase(), displayTitle: 'Mine now' }), 409, 'DOMAIN_TAKEN', ['body', 'domain']);
    });
    expect(dataOf(await admin('GET', '/site')).domain).toBe(domain);

    await admin('PATCH', '/site', { domain: '' });
    expect(dataOf(await otherAdmin('PATCH', '/site', { domain })).domain).toBe(domain);
    expectRefused(await admin('PATCH', '/site', { domain }), 409, 'DOMAIN_TAKEN', ['body', 'domain']);
    expect(dataOf(await admin('GET', '/site')).domain).toBeNull();
  });

  it('resolves the site from the Host when X-Svc-Site is absent', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const admin = caller(service, site);
    const domain = domainOf(site, 'www');
    await admin('PATCH', '/site', { domain });

    const byHost = await requestWithHost(service, 'GET', '/site', { host: domain, token: site.adminToken });
    expect(dataOf(byHost)).toMatchObject({ id: site.siteId, domain });
    expect(dataOf(await requestWithHost(service, 'GET', '/settings', { host: `${domain}:8443`, token: site.adminToken }))).toMatchObject({ erasureDualControl: true });
    expect(dataOf(await requestWithHost(service, 'GET', '/site', { host: domain.toUpperCase(), token: site.adminToken })).id).toBe(site.siteId);
    // The site's token is for that site only; the header, when sent, wins over the Host.
    expect((await requestWithHost(service, 'GET', '/site', { host: domain, token: other.adminToken })).status).toBe(401);
    expect(dataOf(await requestWithHost(service, 'GET', '/site', { host: domain, token: other.adminToken, site: other.siteId })).id).toBe(other.siteId);

    // A domain moved or cleared no longer reaches the site.
    const moved = domainOf(site, 'moved');
    await admin('PATCH', '/site', { domain: moved });
    expect(dataOf(await requestWithHost(service, 'GET', '/site', { host: moved, token: site.adminToken })).id).toBe(site.siteId);
    expectRefused(await requestWithHost(service, 'GET', '/site', { host: domain, token: site.adminToken }), 400, 'VALIDATION_FAILED');
    await admin('PATCH', '/site', { domain: '' });
    expectRefused(await requestWithHost(service, 'GET', '/site', { host: moved, token: site.adminToken }), 400, 'VALIDATION_FAILED');
  });
});

describe('rights, isolation and events', () => {
  it('lets only the site administrator change the site', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const admin = caller(service, site);
    const member = await createMember(service, site);
    const key = dataOf(await admin('POST', '/api-keys', { name: 'reader', roleId: await createRole(service, site.siteId) }), 201).key;
    await expectNothingWritten(site, admin, async () => {
      expectRefused(await caller(service, site, member.token)('PATCH', '/site', { displayTitle: 'Hijacked' }), 403, 'PERMISSION_DENIED');
      expectRefused(await caller(service, site, key)('PATCH', '/site', { displayTitle: 'Hijacked' }), 403, 'PERMISSION_DENIED');
      expectRefused(await caller(service, site, null)('PATCH', '/site', { displayTitle: 'Hijacked' }), 401, 'UNAUTHENTICATED');
      // Another site's administrator token is refused here.
      expect((await caller(service, site, other.adminToken)('PATCH', '/site', { displayTitle: 'Hijacked' })).status).toBe(401);
      expect((await caller(service, site, other.adminToken)('GET', '/site')).status).toBe(401);
    });
  });

  it("never shows or changes another site's configuration", async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const mine = dataOf(await caller(service, site)('PATCH', '/site', { name: 'Mine', branding: { brandColor: '#fff' }, themeOverrides: { light: { ring: '0 0% 0%' } } }));
    expect(dataOf(await caller(service, other)('GET', '/site'))).toEqual(newSiteView(other.siteId));
    await caller(service, other)('PATCH', '/site', { name: 'Theirs', branding: { brandColor: '#000' }, themeOverrides: { light: {} } });
    expect(dataOf(await caller(service, site)('GET', '/site'))).toEqual(mine);
  });

  it('records each change as site.configured by the administrator', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    await admin('PATCH', '/site', { displayTitle: 'One' });
    await admin('PATCH', '/site', { branding: { brandColor: '#123456' }, defaultAppearance: 'light' });
    expectRefused(await admin('PATCH', '/site', { displayTitle: 'Three', defaultAppearance: 'neon' }), 400, 'VALIDATION_FAILED', ['body', 'defaultAppearance']);
    await admin('PATCH', '/site', { displayTitle: '' });
    expect(await auditedActions(service, site, 'site.configured')).toEqual(['site.configured', 'site.configured', 'site.configured']);
    const entries = await auditActions(service, site, '&filter[action][_eq]=site.configured');
    expect(entries).toHaveLength(3);
    for (const entry of entries) expect(entry.actor).toMatchObject({ kind: 'user', id: site.adminUserId });
  });
});
