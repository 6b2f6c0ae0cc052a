// The config manifest's pure parts: reading a manifest, managed scopes, the plan of each mode against
// a site's configuration, renames by field id, the destructive marks and the risk rule. No database.
import { describe, expect, it } from 'vitest';
import type { SiteConfiguration } from '../../../domain/config/configPlan.ts';
import { isManaged, parseScope } from '../../../domain/config/managedScopes.ts';
import type { ImportMode } from '../../../domain/config/manifest.ts';
import { diffOf, markDestructive, planImport, riskOf } from '../../../domain/config/planImport.ts';
import { readManifest, type ParsedManifest } from '../../../domain/config/readManifest.ts';
import { toContentField } from '../../../domain/content/schemaInput.ts';
import { DEFAULT_COLLECTION_META, type ContentField } from '../../../domain/content/schemaModel.ts';

const fields = (...declared: ContentField[]) => new Map(declared.map((field) => [field.field, field]));
const site: SiteConfiguration = {
  collections: new Map([
    ['articles', { meta: { ...DEFAULT_COLLECTION_META, displayName: 'Articles' }, fields: fields(toContentField({ field: 'title', type: 'string' }), toContentField({ field: 'body', type: 'text' })) }],
    ['legacy', { meta: DEFAULT_COLLECTION_META, fields: fields() }],
  ]),
  relations: [],
  subscriptions: [{ id: 'w1', name: 'old-hook', kind: 'webhook', url: 'https://hooks.example.com/old', collections: null, operations: null }],
  settings: new Map<string, unknown>([['theme', 'dark']]),
};

function read(body: Record<string, unknown>): ParsedManifest {
  const reading = readManifest({ version: 'svc.config@v1', ...body });
  expect(reading.errors).toEqual([]);
  return reading.manifest!;
}

const plan = (body: Record<string, unknown>, mode: ImportMode = 'merge') => planImport(site, read(body), mode, () => 'new-id');
const keys = (body: Record<string, unknown>, mode: ImportMode) =>
  plan(body, mode).changes.map((change) => `${change.action} ${change.resource} ${change.key}`);

const articles = { collections: [{ name: 'articles', label: 'Articles' }], fields: [{ collection: 'articles', field: 'title', type: 'string' }] };

describe('reading a manifest', () => {
  it('reports a wrong version alone, and reads nothing else', () => {
    expect(readManifest({ version: 'svc.config@v0', collections: 'not even a list' })).toEqual({
      manifest: null,
      errors: [{ code: 'UNSUPPORTED_MANIFEST_VERSION', message: expect.any(String), path: ['body', 'version'] }],
    });
  });

  it('reports every malformed entry and every key listed twice, and keeps the first of each', () => {
    const reading = readManifest({
      version: 'svc.config@v1',
      surprise: true,
      collections: [{ name: '1bad' }, { name: 'a' }, { name: 'a' }],
      fields: [{ collection: 'a', field: 'x', type: 'string', id: 'b.x' }],
      managedScopes: ['schema', 'everything'],
      webhooks: [{ name: 'w', url: 'ftp://nope' }],
    });
    expect(reading.errors.map((error) => `${error.code} ${error.path.join('.')}`).sort()).toEqual(
      [
        'VALIDATION_FAILED body.surprise',
        'VALIDATION_FAILED body.collections.0.name',
        'DUPLICATE_KEY body.collections.2.name',
        'VALIDATION_FAILED body.fields.0.id',
        'VALIDATION_FAILED body.managedScopes.1',
        'VALIDATION_FAILED body.webhooks.0.url',
      ].sort(),
    );
    expect(reading.manifest!.collections.map((entry) => entry.name)).toEqual(['a']);
    expect([...reading.manifest!.present].sort()).toEqual(['collections', 'fields', 'webhooks']);
  });
});

describe('managed scopes', () => {
  it('covers a kind, one name, or a prefix', () => {
    const scopes = ['collection:blog_*', 'setting:theme', 'webhooks'].map((text) => parseScope(text)!);
    expect(isManaged(scopes, { kind: 'schema', collection: 'blog_posts' })).toBe(true);
    expect(isManaged(scopes, { kind: 'schema', collection: 'pages' })).toBe(false);
    expect(isManaged(scopes, { kind: 'setting', key: 'theme' })).toBe(true);
    expect(isManaged(scopes, { kind: 'setting', key: 'theme2' })).toBe(false);
    expect(isManaged(scopes, { kind: 'webhook', name: 'any' })).toBe(true);
    expect(parseScope('collection:')).toBeNull();
    expect(parseScope('collection:*')).toEqual({ kind: 'collection', pattern: '', prefix: true });
  });
});

describe('planning an import', () => {
  it('merge never deletes; replace-managed deletes within its scopes; replace-all deletes whatever is absent', () => {
    const body = { ...articles, webhooks: [], settings: [], managedScopes: ['collection:articles'] };
    expect(keys(body, 'merge')).toEqual([]);
    expect(keys(body, 'replace-managed')).toEqual(['delete fields articles.body']);
    expect(keys(body, 'replace-all').sort()).toEqual(['delete collections legacy', 'delete fields articles.body', 'delete settings theme', 'delete webhooks old-hook']);
  });

  it('leaves a section the manifest does not have alone, even in replace-all', () => {
    expect(keys({ collections: [{ name: 'articles', label: 'Articles' }, { name: 'legacy' }] }, 'replace-all')).toEqual([]);
  });

  it('takes a field whose id names an existing field of another name as a rename, in any mode', () => {
    const renamed = plan({ fields: [{ id: 'articles.body', collection: 'articles', field: 'content', type: 'text' }] });
    expect(renamed.changes).toEqual([{ resource: 'fields', action: 'rename', key: 'articles.content', from: 'articles.body', path: ['body', 'fields', 0] }]);
    expect(renamed.counts.fields).toEqual({ create: 0, update: 1, unchanged: 0, delete: 0 });
    expect(renamed.dataChecks.fields).toEqual([{ collection: 'articles', field: 'body' }]);
    expect(renamed.work.collections[0]!.fields.map((field) => field.field)).toEqual(['title', 'content']);
    expect(renamed.work.collections[0]!.renames.map(({ from, to }) => `${from} -> ${to}`)).toEqual(['body -> content']);
    // An id whose field is gone, or whose new name is taken, is no rename.
    expect(plan({ fields: [{ id: 'articles.gone', collection: 'articles', field: 'extra', type: 'text' }] }).changes[0]!.action).toBe('create');
    expect(plan({ fields: [{ id: 'articles.body', collection: 'articles', field: 'title', type: 'string' }] }).changes).toEqual([]);
  });

  it('reports dangling references from the site as it will be', () => {
    const dangling = plan({ fields: [{ collection: 'ghosts', field: 'x', type: 'string' }], relations: [{ kind: 'm2o', collection: 'articles', field: 'title', relatedCollection: 'legacy' }] }, 'merge');
    expect(dangling.errors.map((error) => `${error.code} ${error.path.join('.')}`)).toEqual(['DANGLING_REFERENCE body.fields.0.collection']);
    // The relation's collections exist; its field is checked by the relation rules instead.
    const withoutLegacy = plan({ collections: [{ name: 'articles', label: 'Articles' }], relations: [{ kind: 'm2o', collection: 'articles', field: 'title', relatedCollection: 'legacy' }] }, 'replace-all');
    expect(withoutLegacy.errors.map((error) => `${error.code} ${error.path.join('.')}`)).toEqual(['DANGLING_REFERENCE body.relations.0.relatedCollection']);
  });

  it('needs the secret of a webhook it creates, and compares settings by value', () => {
    const planned = plan({ webhooks: [{ name: 'new-hook', url: 'https://hooks.example.com/new' }], settings: [{ key: 'theme', value: 'dark' }] });
    expect(planned.errors).toEqual([{ code: 'VALIDATION_FAILED', message: expect.stringContaining('secret'), path: ['body', 'webhooks', 0, 'secret'] }]);
    expect(planned.counts.settings.unchanged).toBe(1);
  });
});

describe('destructive changes and risk', () => {
  it('marks drops and renames over data, type changes and onDelete widened to cascade', () => {
    const retyped = plan({ fields: [{ collection: 'articles', field: 'title', type: 'text' }] });
    expect(markDestructive(retyped.changes, { collections: new Set(), fields: new Map() })).toHaveLength(1);
    expect(retyped.dataChecks.retyped).toEqual([expect.objectContaining({ collection: 'articles', path: ['body', 'fields', 0, 'type'] })]);
    expect(retyped.dataChecks.reshaped).toEqual([]);
    expect(diffOf(retyped).risk).toBe('high');

    const dropped = plan({ ...articles }, 'replace-all');
    expect(markDestructive(dropped.changes, { collections: new Set(), fields: new Map() })).toEqual([]);
    expect(markDestructive(dropped.changes, { collections: new Set(['legacy']), fields: new Map([['articles.body', 2]]) }).map((change) => change.key)).toEqual([
      'articles.body',
      'legacy',
    ]);
  });

  it('counts the values a rename moves, and marks a rename that changes the type (its values do not move)', () => {
    const renamed = plan({ fields: [{ id: 'articles.body', collection: 'articles', field: 'content', type: 'text' }] });
    expect(markDestructive(renamed.changes, { collections: new Set(), fields: new Map([['articles.body', 3]]) })).toEqual([]);
    expect(renamed.changes[0]).toMatchObject({ action: 'rename', moves: 3 });
    expect(diffOf(renamed).risk).toBe('medium');

    const retyped = plan({ fields: [{ id: 'articles.body', collection: 'articles', field: 'content', type: 'string' }] });
    expect(retyped.changes[0]!.changes).toEqual({ type: { from: 'text', to: 'string' } });
    expect(retyped.work.collections[0]!.renames).toEqual([]);
    const [blocked] = markDestructive(retyped.changes, { collections: new Set(), fields: new Map([['articles.body', 3]]) });
    expect(blocked!.destructive).toMatch(/^the type changes from text to string; 3 items' values are not moved/);
    expect(markDestructive(plan({ fields: [{ id: 'articles.body', collection: 'articles', field: 'content', type: 'string' }] }).changes, { collections: new Set(), fields: new Map() })).toHaveLength(1);
  });

  it('rates creates low, deletes and relation or webhook changes medium, destruction and collection deletes high', () => {
    const change = (resource: string, action: string, extra = {}) => ({ resource, action, key: 'k', path: null, ...extra }) as never;
    expect(riskOf([])).toBe('low');
    expect(riskOf([change('fields', 'create'), change('collections', 'update'), change('settings', 'update')])).toBe('low');
    expect(riskOf([change('settings', 'delete')])).toBe('medium');
    expect(riskOf([change('relations', 'update')])).toBe('medium');
    expect(riskOf([change('fields', 'rename')])).toBe('medium');
    expect(riskOf([change('collections', 'delete')])).toBe('high');
    expect(riskOf([change('fields', 'update', { destructive: 'type' })])).toBe('high');
  });
});
