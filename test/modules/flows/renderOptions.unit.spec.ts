// A node's options rendered over the run data (docs/flows.md "Data"): every string at any depth is a
// template of the sandboxed plain engine, raw keys are left alone, and a string that is one
// `{{ expression }}` keeps its JSON value.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import type { FlowRunData } from '../../../src/modules/flows/operation.ts';
import { MAX_OPTIONS_DEPTH, renderOptions } from '../../../src/modules/flows/renderOptions.ts';

const data: FlowRunData = {
  $trigger: { event: 'update', collection: 'articles', itemId: 42, item: { title: 'Hello <world>', tags: ['a', 'b'], published: true } },
  $last: { count: 3, rows: [{ id: 'x' }, { id: 'y' }] },
  $steps: { read: [{ id: 'x', email: 'ann@example.com' }, { id: 'y', email: 'bob@example.com' }] },
  $flow: { id: 'flow-1', name: 'Notify' },
  $run: { id: 'run-1', depth: 0 },
};

async function failure(options: Record<string, unknown>, raw: string[] = []): Promise<AppError> {
  const error = await renderOptions(options, data, raw).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (error instanceof AppError) return error;
  throw new Error(`expected an AppError, got ${String(error)}`);
}

describe('renderOptions', () => {
  it('renders templates in strings at any depth, in arrays and objects, and leaves other values as they are', async () => {
    const rendered = await renderOptions(
      {
        subject: 'Changed: {{ $trigger.item.title }} in {{ $trigger.collection | upcase }}',
        nested: { list: ['{{ $flow.name }}', 'plain', 7, null, false, { deep: 'run {{ $run.id }} at depth {{ $run.depth }}' }] },
        count: 3,
        flag: true,
        nothing: null,
      },
      data,
    );
    expect(rendered).toEqual({
      subject: 'Changed: Hello <world> in ARTICLES',
      nested: { list: ['Notify', 'plain', 7, null, false, { deep: 'run run-1 at depth 0' }] },
      count: 3,
      flag: true,
      nothing: null,
    });
  });

  it('keeps the JSON value of a string that is exactly one {{ expression }}: numbers, objects, arrays, booleans', async () => {
    const rendered = await renderOptions(
      {
        id: '{{ $trigger.itemId }}',
        item: '{{ $last }}',
        tags: '{{$trigger.item.tags}}',
        published: '{{- $trigger.item.published -}}',
        emails: '{{ $steps.read | map: "email" }}',
        size: '{{ $steps.read.size }}',
        title: '{{ $trigger.item.title }}',
      },
      data,
    );
    expect(rendered).toEqual({
      id: 42,
      item: { count: 3, rows: [{ id: 'x' }, { id: 'y' }] },
      tags: ['a', 'b'],
      published: true,
      emails: ['ann@example.com', 'bob@example.com'],
      size: 2,
      title: 'Hello <world>',
    });
  });

  it('gives null for a sole expression that names nothing, and text when anything surrounds the expression', async () => {
    const rendered = await renderOptions({ missing: '{{ $trigger.nothing.here }}', spaced: ' {{ $trigger.itemId }}', two: '{{ $trigger.itemId }}{{ $run.depth }}' }, data);
    expect(rendered).toEqual({ missing: null, spaced: ' 42', two: '420' });
  });

  it('gives a copy of the data, so an operation that changes its options cannot change the run data', async () => {
    const rendered = await renderOptions({ item: '{{ $last }}' }, data);
    (rendered.item as { count: number }).count = 99;
    expect((data.$last as { count: number }).count).toBe(3);
  });

  it('leaves the top-level raw keys untouched, templates and all, and renders the same names deeper down', async () => {
    const filter = { '$trigger.item.title': { _eq: '{{ not rendered }}' } };
    const rendered = await renderOptions({ filter, expression: '$trigger.itemId', other: { filter: '{{ $trigger.itemId }}' } }, data, ['filter', 'expression']);
    expect(rendered).toEqual({ filter, expression: '$trigger.itemId', other: { filter: 42 } });
  });

  it('keeps `$` in text outside tags, in quoted strings and in properties', async () => {
    const rendered = await renderOptions({ price: 'Costs $5: {{ "$trigger" }} {{ $trigger.collection }}' }, data);
    expect(rendered.price).toBe('Costs $5: $trigger articles');
  });

  it('renders nothing that reads a file or reaches JavaScript', async () => {
    expect((await failure({ text: "{% include 'etc/passwd' %}" })).path).toEqual(['options', 'text']);
    expect((await failure({ list: ['ok', { text: "{% render '/etc/passwd' %}" }] })).path).toEqual(['options', 'list', 1, 'text']);
    const rendered = await renderOptions({ a: '{{ $trigger.constructor }}', b: '{{ $trigger.item.title.constructor.name }}', c: '{{ $trigger.__proto__ }}' }, data);
    expect(rendered).toEqual({ a: null, b: null, c: null });
  });

  it('refuses a template that does not parse, or an unknown filter, at the option path', async () => {
    const unclosed = await failure({ headers: { 'x-title': '{{ $trigger.item.title' } });
    expect(unclosed).toMatchObject({ code: 'VALIDATION_FAILED', path: ['options', 'headers', 'x-title'] });
    const unknownFilter = await failure({ text: '{{ $trigger.collection | shell }}' });
    expect(unknownFilter).toMatchObject({ code: 'VALIDATION_FAILED', path: ['options', 'text'] });
  });

  it('stops a render that runs past its bounds', async () => {
    const error = await failure({ text: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' });
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', path: ['options', 'text'] });
  });

  it(`refuses options nested deeper than ${MAX_OPTIONS_DEPTH} levels, and renders them at the limit`, async () => {
    const nest = (levels: number): unknown => (levels === 0 ? '{{ $run.depth }}' : { next: nest(levels - 1) });
    await expect(renderOptions({ deep: nest(MAX_OPTIONS_DEPTH) }, data)).resolves.toBeDefined();
    const error = await failure({ deep: nest(MAX_OPTIONS_DEPTH + 1) });
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.path).toEqual(['options', 'deep', ...Array.from({ length: MAX_OPTIONS_DEPTH }, () => 'next')]);
  });
});
