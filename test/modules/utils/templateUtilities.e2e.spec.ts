// The expression utilities (docs/flows.md "Utilities"): POST /utils/render-template renders with the
// flows' sandboxed LiquidJS engine, POST /utils/jsonata/test evaluates JSONata as the transform
// operation does; both bounded, both for any signed-in principal of the site.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { expectRefusal } from '../email/support/sendHarness.ts';

const service = await startTestServiceForFile();

async function newSite(): Promise<AccessSite> {
  return withHelpers(service, await createTestSite(service, 'utils'));
}

const runData = {
  $trigger: { collection: 'articles', itemId: 42, item: { title: 'Hello <world>', tags: ['a', 'b'] } },
  $steps: { read: [{ rating: 2 }, { rating: 5 }] },
  name: 'Ann',
};

describe('POST /utils/render-template', () => {
  it('renders a template over the data: $ roots, plain names, filters, loops, no HTML escaping', async () => {
    const site = await newSite();
    const template =
      '{{ name | upcase }} changed {{ $trigger.item.title }} in {{ $trigger.collection }} (#{{ $trigger.itemId }}): ' +
      '{% for tag in $trigger.item.tags %}[{{ tag }}]{% endfor %} {{ $steps.read.size }} reads, $5 kept';
    const rendered = await site.admin('POST', '/utils/render-template', { template, data: runData });
    expect(rendered.status, JSON.stringify(rendered.body)).toBe(200);
    expect(rendered.body).toEqual({ data: { result: 'ANN changed Hello <world> in articles (#42): [a][b] 2 reads, $5 kept' } });
    // A lone expression still answers text here: the utility shows what a template renders to.
    expect((await site.admin('POST', '/utils/render-template', { template: '{{ $trigger.itemId }}', data: runData })).body.data.result).toBe('42');
    expect((await site.admin('POST', '/utils/render-template', { template: 'no data {{ missing }}' })).body.data.result).toBe('no data ');
  });

  it('reads no file and reaches no JavaScript: include and render are 400 at body.template, properties of the prototype are empty', async () => {
    const site = await newSite();
    for (const template of ["{% include '/etc/passwd' %}", "{% render '../../package.json' %}", "{% layout 'x' %}body", '{{ name | shell }}', '{{ name ']) {
      expectRefusal(await site.admin('POST', '/utils/render-template', { template, data: runData }), 400, 'VALIDATION_FAILED', ['body', 'template']);
    }
    const probe = '[{{ name.constructor }}][{{ $trigger.__proto__ }}][{{ $trigger.item.title.constructor.name }}]';
    expect((await site.admin('POST', '/utils/render-template', { template: probe, data: runData })).body.data.result).toBe('[][][]');
  });

  it('stops a render past its bounds with 400 while the service keeps answering, and refuses a source over 200,000 characters', async () => {
    const site = await newSite();
    const started = Date.now();
    const endless = await site.admin('POST', '/utils/render-template', { template: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' });
    expectRefusal(endless, 400, 'VALIDATION_FAILED', ['body', 'template']);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await site.admin('POST', '/utils/render-template', { template: 'still {{ "up" }}' })).body.data.result).toBe('still up');
    expectRefusal(await site.admin('POST', '/utils/render-template', { template: 'x'.repeat(200_001) }), 400, 'VALIDATION_FAILED', ['body', 'template']);
    expectRefusal(await site.admin('POST', '/utils/render-template', { template: 'x', extra: 1 }), 400, 'VALIDATION_FAILED');
  });
});

describe('POST /utils/jsonata/test', () => {
  it('evaluates over the data, its $ keys as variables, and answers null for nothing', async () => {
    const site = await newSite();
    const expression = '{ "title": $uppercase($trigger.item.title), "total": $sum($steps.read.rating), "name": name }';
    const evaluated = await site.admin('POST', '/utils/jsonata/test', { expression, data: runData });
    expect(evaluated.status, JSON.stringify(evaluated.body)).toBe(200);
    expect(evaluated.body).toEqual({ data: { result: { title: 'HELLO <WORLD>', total: 7, name: 'Ann' } } });
    expect((await site.admin('POST', '/utils/jsonata/test', { expression: '$sum($)', data: [1, 2, 3] })).body.data.result).toBe(6);
    expect((await site.admin('POST', '/utils/jsonata/test', { expression: 'nothing.here' })).body).toEqual({ data: { result: null } });
  });

  it('answers a bad expression with 400 at body.expression and the position in extensions', async () => {
    const site = await newSite();
    const bad = await site.admin('POST', '/utils/jsonata/test', { expression: 'foo(', data: {} });
    expectRefusal(bad, 400, 'VALIDATION_FAILED', ['body', 'expression']);
    expect(bad.body.errors[0].extensions).toEqual({ position: 4, code: 'S0203' });
    const failing = await site.admin('POST', '/utils/jsonata/test', { expression: '$string(1/0)', data: {} });
    expectRefusal(failing, 400, 'VALIDATION_FAILED', ['body', 'expression']);
    expect(failing.body.errors[0].extensions).toMatchObject({ position: expect.any(Number), code: 'D3001' });
    const fn = await site.admin('POST', '/utils/jsonata/test', { expression: 'function($x){ $x }' });
    expectRefusal(fn, 400, 'VALIDATION_FAILED', ['body', 'expression']);
  });

  it('bounds evaluation in time, depth and sequence length, while the service keeps answering', async () => {
    const site = await newSite();
    const started = Date.now();
    const endless = await site.admin('POST', '/utils/jsonata/test', { expression: '( $loop := function($n){ $loop($n + 1) }; $loop(0) )' });
    expectRefusal(endless, 400, 'VALIDATION_FAILED', ['body', 'expression']);
    expect(endless.body.errors[0].extensions.code).toBe('D1012');
    expect(Date.now() - started).toBeLessThan(5_000);
    const deep = await site.admin('POST', '/utils/jsonata/test', { expression: '( $f := function($n){ $n > 0 ? $f($n - 1) + 1 : 0 }; $f(100000) )' });
    expect(deep.body.errors[0].extensions.code).toBe('D1011');
    const long = await site.admin('POST', '/utils/jsonata/test', { expression: '$count([1..10000000])' });
    expect(long.body.errors[0].extensions.code).toBe('D2015');
    expect((await site.admin('POST', '/utils/jsonata/test', { expression: '1 + 1' })).body.data.result).toBe(2);
  });
});

describe('who may use the utilities', () => {
  it('any signed-in principal of the site; 401 without a token', async () => {
    const site = await newSite();
    const member = await createMember(service, site);
    expect((await site.as(member.token, 'POST', '/utils/render-template', { template: 'hi {{ name }}', data: { name: 'm' } })).body).toEqual({ data: { result: 'hi m' } });
    expect((await site.as(member.token, 'POST', '/utils/jsonata/test', { expression: '1' })).status).toBe(200);
    expectRefusal(await site.as(null, 'POST', '/utils/render-template', { template: 'x' }), 401, 'UNAUTHENTICATED');
    expectRefusal(await site.as(null, 'POST', '/utils/jsonata/test', { expression: '1' }), 401, 'UNAUTHENTICATED');
  });
});
