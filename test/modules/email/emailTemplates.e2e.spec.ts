// Email layouts and templates (docs/email.md "Layouts", "Templates", "Rendering"): CRUD with every
// refusal, the sandboxed rendering seen through previews, versions, who may call, and sites kept apart.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { expectRefusal } from './support/sendHarness.ts';

// No SMTP_URL: layouts, templates and previews work without a relay.
const service = await startTestServiceForFile();

const SHELL = '<html><body><div class="shell">{{content}}</div><footer>{{ site }}</footer></body></html>';

async function newSite(): Promise<AccessSite> {
  return withHelpers(service, await createTestSite(service, 'email'));
}

async function createLayout(site: AccessSite, body: { name: string; html: string } = { name: 'Shell', html: SHELL }) {
  const created = await site.admin('POST', '/email/layouts', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data as { id: string; name: string; html: string; version: number };
}

async function createTemplate(site: AccessSite, body: Record<string, unknown>) {
  const created = await site.admin('POST', '/email/templates', { subject: 'Hello', html: '<p>Hello</p>', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data as { id: string; key: string; version: number; subject: string };
}

describe('email layouts', () => {
  it('are created, read, listed, updated (a new version) and deleted', async () => {
    const site = await newSite();
    const layout = await createLayout(site);
    expect(layout).toMatchObject({ name: 'Shell', html: SHELL, version: 1, createdAt: expect.any(String), updatedAt: expect.any(String) });
    await createLayout(site, { name: 'Second', html: '<div>{{ content }}</div>' });

    expect((await site.admin('GET', `/email/layouts/${layout.id}`)).body.data).toEqual(layout);
    const page = await site.admin('GET', '/email/layouts?limit=1&page=2');
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ total: 2, page: 2, pageSize: 1 });
    expect(page.body.data).toHaveLength(1);

    const renamed = await site.admin('PATCH', `/email/layouts/${layout.id}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: layout.id, name: 'Renamed', html: SHELL, version: 2 });

    expect((await site.admin('DELETE', `/email/layouts/${layout.id}`)).status).toBe(204);
    expect((await site.admin('GET', `/email/layouts/${layout.id}`)).status).toBe(404);
    expect((await site.admin('DELETE', `/email/layouts/${layout.id}`)).status).toBe(404);
    expect((await site.admin('GET', '/email/layouts')).body.meta.total).toBe(1);
  });

  it('must contain {{content}} exactly once (spaces inside the braces allowed)', async () => {
    const site = await newSite();
    expectRefusal(await site.admin('POST', '/email/layouts', { name: 'No slot', html: '<div>nothing</div>' }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    expectRefusal(await site.admin('POST', '/email/layouts', { name: 'Two', html: '{{content}}<hr>{{ content }}' }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    expectRefusal(await site.admin('POST', '/email/layouts', { html: '{{content}}' }), 400, 'VALIDATION_FAILED', ['body', 'name']);
    const spaced = await createLayout(site, { name: 'Spaced', html: '<main>{{   content  }}</main>' });
    expectRefusal(await site.admin('PATCH', `/email/layouts/${spaced.id}`, { html: '<main></main>' }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    expect((await site.admin('GET', `/email/layouts/${spaced.id}`)).body.data.version).toBe(1);
  });

  it('cannot be deleted while a template uses it (409), and can once the template is gone', async () => {
    const site = await newSite();
    const layout = await createLayout(site);
    const template = await createTemplate(site, { key: 'welcome', layoutId: layout.id });
    expectRefusal(await site.admin('DELETE', `/email/layouts/${layout.id}`), 409, 'CONFLICT');
    expect((await site.admin('GET', `/email/layouts/${layout.id}`)).status).toBe(200);
    expect((await site.admin('DELETE', `/email/templates/${template.id}`)).status).toBe(204);
    expect((await site.admin('DELETE', `/email/layouts/${layout.id}`)).status).toBe(204);
  });
});

describe('email templates', () => {
  it('are created with defaults, read, listed by category, updated and deleted (the key is free again)', async () => {
    const site = await newSite();
    const created = await site.admin('POST', '/email/templates', { key: 'order.receipt_v1', subject: 'Your order {{ number }}', html: '<p>{{ number }}</p>' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const template = created.body.data;
    expect(template).toMatchObject({
      id: expect.any(String),
      key: 'order.receipt_v1',
      subject: 'Your order {{ number }}',
      html: '<p>{{ number }}</p>',
      text: null,
      layoutId: null,
      category: 'transactional',
      variables: [],
      version: 1,
    });
    await createTemplate(site, { key: 'newsletter', category: 'marketing', text: 'News', html: undefined });

    expect((await site.admin('GET', `/email/templates/${template.id}`)).body.data).toEqual(template);
    const marketing = await site.admin('GET', '/email/templates?category=marketing');
    expect(marketing.body.data.map((row: { key: string }) => row.key)).toEqual(['newsletter']);
    expect(marketing.body.meta.total).toBe(1);
    expect((await site.admin('GET', '/email/templates')).body.meta.total).toBe(2);

    const updated = await site.admin('PATCH', `/email/templates/${template.id}`, { text: 'Order {{ number }}', variables: ['number'] });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id: template.id, key: 'order.receipt_v1', text: 'Order {{ number }}', variables: ['number'], version: 2 });

    expect((await site.admin('DELETE', `/email/templates/${template.id}`)).status).toBe(204);
    expect((await site.admin('GET', `/email/templates/${template.id}`)).status).toBe(404);
    expect((await site.admin('POST', '/email/templates/order.receipt_v1/preview', {})).status).toBe(404);
    const reused = await createTemplate(site, { key: 'order.receipt_v1' });
    expect(reused.id).not.toBe(template.id);
  });

  it('refuses a key used by another template of the site with 409 at body.key', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'welcome' });
    expectRefusal(await site.admin('POST', '/email/templates', { key: 'welcome', subject: 'x', text: 'x' }), 409, 'CONFLICT', ['body', 'key']);
    const other = await createTemplate(site, { key: 'other' });
    expectRefusal(await site.admin('PATCH', `/email/templates/${other.id}`, { key: 'welcome' }), 409, 'CONFLICT', ['body', 'key']);
  });

  it('refuses an unknown layout, a template without html or text, bad keys, subjects and variable names', async () => {
    const site = await newSite();
    const post = (body: Record<string, unknown>) => site.admin('POST', '/email/templates', { key: 'k', subject: 'S', html: '<p>x</p>', ...body });
    expectRefusal(await post({ layoutId: randomUUID() }), 400, 'VALIDATION_FAILED', ['body', 'layoutId']);
    expectRefusal(await post({ html: undefined }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    expectRefusal(await post({ html: null, text: null }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    for (const key of ['Upper', '-dash-first', '.dot', 'has space', 'slash/no', '', 'k'.repeat(101), 'ключ']) {
      expectRefusal(await post({ key }), 400, 'VALIDATION_FAILED', ['body', 'key']);
    }
    expect((await post({ key: `9${'k'.repeat(99)}` })).status).toBe(201);
    expectRefusal(await post({ key: 'multi', subject: 'Line\r\nBcc: evil@example.test' }), 400, 'VALIDATION_FAILED', ['body', 'subject']);
    expectRefusal(await post({ key: 'empty-subject', subject: '' }), 400, 'VALIDATION_FAILED', ['body', 'subject']);
    expectRefusal(await post({ key: 'category', category: 'spam' }), 400, 'VALIDATION_FAILED', ['body', 'category']);
    expectRefusal(await post({ key: 'vars', variables: ['ok', '1bad'] }), 400, 'VALIDATION_FAILED', ['body', 'variables', 1]);
    expect((await site.admin('GET', '/email/templates')).body.meta.total).toBe(1);
  });

  it('refuses sources, names and variable lists past their bounds', async () => {
    const site = await newSite();
    const tooLong = `<p>${'x'.repeat(200_000)}</p>`;
    expectRefusal(await site.admin('POST', '/email/layouts', { name: 'Big', html: `{{content}}${tooLong}` }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    expectRefusal(await site.admin('POST', '/email/layouts', { name: 'n'.repeat(201), html: '{{content}}' }), 400, 'VALIDATION_FAILED', ['body', 'name']);
    const post = (body: Record<string, unknown>) => site.admin('POST', '/email/templates', { key: 'bounded', subject: 'S', ...body });
    expectRefusal(await post({ html: tooLong }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    expectRefusal(await post({ text: tooLong }), 400, 'VALIDATION_FAILED', ['body', 'text']);
    expectRefusal(await post({ text: 'x', subject: 's'.repeat(999) }), 400, 'VALIDATION_FAILED', ['body', 'subject']);
    expectRefusal(await post({ text: 'x', variables: Array.from({ length: 101 }, (_, index) => `v${index}`) }), 400, 'VALIDATION_FAILED', ['body', 'variables']);
    expect((await post({ text: 'x'.repeat(200_000), subject: 's'.repeat(998) })).status).toBe(201);
  });

  it('refuses at save the tags that would read a file, and a render that never ends', async () => {
    const site = await newSite();
    const post = (key: string, html: string) => site.admin('POST', '/email/templates', { key, subject: 'S', html });
    expectRefusal(await post('include', "<p>{% include '/etc/passwd' %}</p>"), 400, 'VALIDATION_FAILED');
    expectRefusal(await post('render', "<p>{% render 'x' %}</p>"), 400, 'VALIDATION_FAILED');
    expectRefusal(await post('layout', "{% layout 'base' %}<p>x</p>"), 400, 'VALIDATION_FAILED');
    expectRefusal(await post('unclosed', '<p>{% if x %}never closed</p>'), 400, 'VALIDATION_FAILED', ['body', 'html']);
    const loop = '{% for i in (1..100000) %}{% for j in (1..100000) %}xxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}';
    const started = Date.now();
    expectRefusal(await post('loop', loop), 400, 'VALIDATION_FAILED');
    expect(Date.now() - started, 'the render is bounded in time').toBeLessThan(10_000);
    expectRefusal(await site.admin('POST', '/email/templates', { key: 'text-include', subject: 'S', text: "{% include 'secrets' %}" }), 400, 'VALIDATION_FAILED');
    expect((await site.admin('GET', '/email/templates')).body.meta.total).toBe(0);
  });
});

describe('email template previews', () => {
  it('escape every output in the HTML part, and not in the subject or the text part', async () => {
    const site = await newSite();
    await createTemplate(site, {
      key: 'escape',
      subject: 'Hi {{ name }}',
      html: '<p>Hi {{ name }}</p><p>{{ trusted | raw }}</p>',
      text: 'Hi {{ name }}',
      variables: ['name', 'trusted'],
    });
    const preview = await site.admin('POST', '/email/templates/escape/preview', {
      variables: { name: '<script>alert(1)</script>', trusted: '<b>bold</b>' },
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const { subject, html, text, version } = preview.body.data;
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('<b>bold</b>');
    expect(text).toBe('Hi <script>alert(1)</script>');
    expect(subject).toBe('Hi <script>alert(1)</script>');
    expect(version).toBe(1);
  });

  it('derive the text part from the HTML when the template has none, and wrap the HTML in the layout', async () => {
    const site = await newSite();
    const layout = await createLayout(site);
    await createTemplate(site, { key: 'wrapped', subject: 'Welcome', html: '<p>Hello {{ name }}</p>', layoutId: layout.id });
    const preview = await site.admin('POST', '/email/templates/wrapped/preview', { variables: { name: 'Ada', site: 'Acme & Co' } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const { html, text } = preview.body.data;
    expect(html).toContain('<div class="shell"><p>Hello Ada</p></div>');
    expect(html).toContain('<footer>Acme &amp; Co</footer>');
    expect(text).toContain('Hello Ada');
    expect(text).toContain('Acme & Co');
    expect(text).not.toMatch(/<\/?(p|div|footer)/);
  });

  it('answer a text-only template with no HTML part', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'plain', html: undefined, text: 'Just {{ word }}' });
    const preview = await site.admin('POST', '/email/templates/plain/preview', { variables: { word: 'text' } });
    expect(preview.body.data).toMatchObject({ html: null, text: 'Just text' });
  });

  it('refuse a missing declared variable with 400 at body.variables.<name>, and an unknown key with 404', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'needs', html: '<p>{{ firstName }} {{ code }}</p>', variables: ['firstName', 'code'] });
    const missing = await site.admin('POST', '/email/templates/needs/preview', { variables: { firstName: 'Ada' } });
    expectRefusal(missing, 400, 'VALIDATION_FAILED', ['body', 'variables', 'code']);
    expect((await site.admin('POST', '/email/templates/needs/preview', { variables: { firstName: 'Ada', code: 42 } })).status).toBe(200);
    expectRefusal(await site.admin('POST', '/email/templates/unknown/preview', {}), 404, 'NOT_FOUND');
  });

  it('turn line breaks a variable brings into the subject into spaces (no header injection)', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'subject', subject: 'Hi {{ name }}', text: 'x' });
    const preview = await site.admin('POST', '/email/templates/subject/preview', { variables: { name: 'Ada\r\nBcc: evil@example.test\nX-Other: 1' } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.data.subject).not.toMatch(/[\r\n]/);
    expect(preview.body.data.subject).toMatch(/^Hi Ada +Bcc: evil@example\.test +X-Other: 1$/);
  });

  it('refuse variables nested deeper than 64 levels', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'deep', text: '{{ a }}' });
    let nested: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 100; level += 1) nested = { a: nested };
    expectRefusal(await site.admin('POST', '/email/templates/deep/preview', { variables: nested }), 400, 'VALIDATION_FAILED');
  });
});

describe('email template versions', () => {
  it('count every change, list every version newest first, and preview a past one', async () => {
    const site = await newSite();
    const layout = await createLayout(site, { name: 'Old shell', html: '<old>{{content}}</old>' });
    const template = await createTemplate(site, { key: 'versioned', subject: 'First subject', html: '<p>one</p>', layoutId: layout.id });
    expect(template.version).toBe(1);
    const second = await site.admin('PATCH', `/email/templates/${template.id}`, { subject: 'Second subject', html: '<p>two</p>' });
    expect(second.body.data.version).toBe(2);
    const third = await site.admin('PATCH', `/email/templates/${template.id}`, { category: 'marketing' });
    expect(third.body.data.version).toBe(3);

    const versions = await site.admin('GET', `/email/templates/${template.id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.data.map((version: { version: number }) => version.version)).toEqual([3, 2, 1]);
    expect(versions.body.data[2]).toMatchObject({ version: 1, key: 'versioned', subject: 'First subject', html: '<p>one</p>', category: 'transactional', layoutId: layout.id });
    expect(versions.body.data[0]).toMatchObject({ version: 3, subject: 'Second subject', category: 'marketing' });

    // A past version is wrapped in the layout's current content.
    await site.admin('PATCH', `/email/layouts/${layout.id}`, { html: '<new>{{content}}</new>' });
    const old = await site.admin('POST', '/email/templates/versioned/preview', { version: 1 });
    expect(old.status, JSON.stringify(old.body)).toBe(200);
    expect(old.body.data).toMatchObject({ subject: 'First subject', version: 1 });
    expect(old.body.data.html).toContain('<new><p>one</p></new>');
    const current = await site.admin('POST', '/email/templates/versioned/preview', {});
    expect(current.body.data).toMatchObject({ subject: 'Second subject', version: 3 });

    expectRefusal(await site.admin('POST', '/email/templates/versioned/preview', { version: 4 }), 404, 'NOT_FOUND');
    expect((await site.admin('GET', `/email/templates/${randomUUID()}/versions`)).status).toBe(404);
  });
});

describe('who may manage email templates', () => {
  it('refuses a caller without credentials (401) and a user who is not an administrator (403)', async () => {
    const site = await newSite();
    const layout = await createLayout(site);
    const template = await createTemplate(site, { key: 'guarded' });
    const member = await createMember(service, site);
    const calls: [string, string, unknown?][] = [
      ['GET', '/email/layouts'],
      ['POST', '/email/layouts', { name: 'L', html: '{{content}}' }],
      ['GET', `/email/layouts/${layout.id}`],
      ['PATCH', `/email/layouts/${layout.id}`, { name: 'L' }],
      ['DELETE', `/email/layouts/${layout.id}`],
      ['GET', '/email/templates'],
      ['POST', '/email/templates', { key: 'x', subject: 'S', text: 'T' }],
      ['GET', `/email/templates/${template.id}`],
      ['PATCH', `/email/templates/${template.id}`, { subject: 'S2' }],
      ['DELETE', `/email/templates/${template.id}`],
      ['GET', `/email/templates/${template.id}/versions`],
      ['POST', '/email/templates/guarded/preview', {}],
    ];
    for (const [method, path, body] of calls) {
      expectRefusal(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
      expectRefusal(await site.as(member.token, method, path, body), 403, 'PERMISSION_DENIED');
    }
    expect((await site.admin('GET', `/email/templates/${template.id}`)).body.data.version).toBe(1);
    expect((await site.admin('GET', '/email/layouts')).body.meta.total).toBe(1);
  });
});

describe('email templates across sites', () => {
  it('answer 404 for another site’s ids and keys, and never list them', async () => {
    const siteA = await newSite();
    const siteB = await newSite();
    const layout = await createLayout(siteA);
    const template = await createTemplate(siteA, { key: 'shared-key', layoutId: layout.id });

    for (const [method, path, body] of [
      ['GET', `/email/layouts/${layout.id}`],
      ['PATCH', `/email/layouts/${layout.id}`, { name: 'Taken' }],
      ['DELETE', `/email/layouts/${layout.id}`],
      ['GET', `/email/templates/${template.id}`],
      ['PATCH', `/email/templates/${template.id}`, { subject: 'Taken' }],
      ['DELETE', `/email/templates/${template.id}`],
      ['GET', `/email/templates/${template.id}/versions`],
      ['POST', '/email/templates/shared-key/preview', {}],
    ] as [string, string, unknown?][]) {
      expectRefusal(await siteB.admin(method, path, body), 404, 'NOT_FOUND');
    }
    expect((await siteB.admin('GET', '/email/layouts')).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await siteB.admin('GET', '/email/templates')).body).toMatchObject({ data: [], meta: { total: 0 } });
    expectRefusal(await siteB.admin('POST', '/email/templates', { key: 'other', subject: 'S', text: 'T', layoutId: layout.id }), 400, 'VALIDATION_FAILED', [
      'body',
      'layoutId',
    ]);
    // Keys are unique per site: B may use A's key.
    await createTemplate(siteB, { key: 'shared-key' });

    expect((await siteA.admin('GET', `/email/layouts/${layout.id}`)).body.data).toMatchObject({ name: 'Shell', version: 1 });
    expect((await siteA.admin('GET', `/email/templates/${template.id}`)).body.data).toMatchObject({ subject: 'Hello', version: 1 });
  });
});
