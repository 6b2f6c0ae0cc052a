// Model-based check of one item's history: random sequences of PATCH, PUT, draft writes, deletes,
// reverts (which also bring a deleted item back) and named versions (create, edit, promote, delete)
// against a plain model of what each should do.
// After every step the item, its draft, its versions and its revisions must agree with the model:
// reads show the model's main content, X-Svc-Draft reads the draft (or main), each version its data,
// `mainChanged` compares the item's version with the version's base, and every revision's `data` is
// the main content as it stood at some step (the newest one: as it stands now).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCollection } from '../../support/contentModel.ts';
import type { TestResponse } from '../../support/testService.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createHistorySite, createItem, type HistorySite, type RevisionView } from './support.ts';

// Hundreds of requests in a few seconds: the rate limits are not what this test is about.
const service = await startTestServiceForFile({ SVC_RATE_LIMIT_ITEMS_WRITE: '0', SVC_RATE_LIMIT_ITEMS_READ: '0' });
let site: HistorySite;
beforeAll(async () => {
  site = await createHistorySite(service);
  await createCollection(service, site, 'pages', [
    { field: 'title', type: 'string', required: true },
    { field: 'body', type: 'text' },
    { field: 'views', type: 'integer' },
    { field: 'summary', type: 'text', options: { translatable: true } },
  ]);
});

type Languages = Record<string, string>;
type Content = { title: string; body: string | null; views: number | null; summary: Languages | null };
const PLAIN_FIELDS = ['title', 'body', 'views'] as const;

function contentOf(value: Record<string, unknown>): Content {
  return {
    title: value.title as string,
    body: (value.body ?? null) as string | null,
    views: (value.views ?? null) as number | null,
    summary: (value.summary ?? null) as Languages | null,
  };
}

/** Content as JSON with the languages in a fixed order, to compare states. */
function canonical(content: Content): string {
  const summary = content.summary && Object.fromEntries(Object.entries(content.summary).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify({ ...content, summary });
}

/** The languages of `next` that differ from `base`: what a promotion writes into main's map. */
function changedLanguages(base: Languages | null, next: Languages | null): Languages {
  return Object.fromEntries(Object.entries(next ?? {}).filter(([language, text]) => base?.[language] !== text));
}

const title = fc.constantFrom('Alpha', 'Beta', 'Gamma');
const body = fc.constantFrom(null, 'one', 'two');
const views = fc.constantFrom(null, 0, 7);
const plain = fc.record({ title, body, views }, { requiredKeys: [] });
/** A translatable value written in one language (X-Svc-Locale), or nothing. */
const summary = fc.option(fc.record({ language: fc.constantFrom('en', 'fr'), text: fc.constantFrom('hello', 'bonjour', 'salut') }), { nil: undefined });
const changes = fc.record({ fields: plain, summary });
const key = fc.constantFrom('v1', 'v2');

type Write = { fields: Partial<Omit<Content, 'summary'>>; summary: { language: string; text: string } | undefined };

type Step =
  | { kind: 'patch' | 'draft'; changes: Write }
  | { kind: 'put'; content: Omit<Content, 'summary'>; summary: Write['summary']; asMap: boolean }
  | { kind: 'revert'; pick: number }
  | { kind: 'delete' }
  | { kind: 'versionCreate' | 'versionDelete' | 'promote'; key: string }
  | { kind: 'versionPatch'; key: string; changes: Write };

const step: fc.Arbitrary<Step> = fc.oneof(
  changes.map((c) => ({ kind: 'patch' as const, changes: c })),
  changes.map((c) => ({ kind: 'draft' as const, changes: c })),
  fc
    .record({ content: fc.record({ title, body, views }), summary, asMap: fc.boolean() })
    .map(({ content, summary: s, asMap }) => ({ kind: 'put' as const, content, summary: s, asMap })),
  fc.nat().map((pick) => ({ kind: 'revert' as const, pick })),
  fc.constant({ kind: 'delete' as const }),
  key.map((k) => ({ kind: 'versionCreate' as const, key: k })),
  key.map((k) => ({ kind: 'versionDelete' as const, key: k })),
  key.map((k) => ({ kind: 'promote' as const, key: k })),
  fc.tuple(key, changes).map(([k, c]) => ({ kind: 'versionPatch' as const, key: k, changes: c })),
);

/** A write's body and headers: the translatable value goes in its language's header. */
function request(write: Write): { body: Record<string, unknown>; headers: Record<string, string> } {
  if (!write.summary) return { body: write.fields, headers: {} };
  return { body: { ...write.fields, summary: write.summary.text }, headers: { 'x-svc-locale': write.summary.language } };
}

/** `content` after a write: plain fields replaced, the written language set, the others kept. */
function written(content: Content, write: Write): Content {
  const summary = write.summary ? { ...(content.summary ?? {}), [write.summary.language]: write.summary.text } : content.summary;
  return { ...content, ...write.fields, summary };
}

interface Model {
  main: Content;
  draft: Content | null;
  deleted: boolean;
  versions: Map<string, { data: Content; base: Content }>;
  /** Every main content the item has had (canonical JSON). */
  seen: Set<string>;
}

function expectStatus(response: TestResponse, status: number, what: string): void {
  expect(response.status, `${what} → ${JSON.stringify(response.body)}`).toBe(status);
}

describe("an item's history follows a model of its writes", () => {
  it('reads, drafts, versions and revisions agree with the model after every step', { timeout: 120_000 }, async () => {
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      service.request(method, path, { ...site.as, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });

    await fc.assert(
      fc.asyncProperty(fc.record({ title, body, views }), fc.array(step, { minLength: 1, maxLength: 10 }), async (fields, steps) => {
        const item = await createItem(service, site, 'pages', fields);
        const path = `/items/pages/${item.id}`;
        const initial: Content = { ...fields, summary: null };
        const model: Model = { main: initial, draft: null, deleted: false, versions: new Map(), seen: new Set([canonical(initial)]) };
        const trail: string[] = [];

        for (const action of steps) {
          trail.push(JSON.stringify(action));
          const what = trail.join(' → ');
          switch (action.kind) {
            case 'patch': {
              const { body: sent, headers } = request(action.changes);
              expectStatus(await call('PATCH', path, sent, headers), model.deleted ? 404 : 200, what);
              if (!model.deleted) model.main = written(model.main, action.changes);
              break;
            }
            case 'put': {
              // A full replace: plain fields as sent. The translatable field written in one language
              // (the header) keeps its other languages; sent as a map without the header it becomes
              // that map; left out, it is cleared.
              const { summary: translated } = action;
              if (translated && action.asMap) {
                const sent = { ...action.content, summary: { [translated.language]: translated.text } };
                expectStatus(await call('PUT', path, sent), model.deleted ? 404 : 200, what);
                if (!model.deleted) model.main = { ...action.content, summary: { [translated.language]: translated.text } };
                break;
              }
              const { body: sent, headers } = request({ fields: action.content, summary: translated });
              expectStatus(await call('PUT', path, sent, headers), model.deleted ? 404 : 200, what);
              if (!model.deleted) model.main = written({ ...action.content, summary: translated ? model.main.summary : null }, { fields: {}, summary: translated });
              break;
            }
            case 'draft': {
              const { body: sent, headers } = request(action.changes);
              expectStatus(await call('PATCH', path, sent, { ...headers, 'x-svc-draft': 'true' }), model.deleted ? 404 : 200, what);
              if (!model.deleted) model.draft = written(model.draft ?? model.main, action.changes);
              break;
            }
            case 'delete':
              expectStatus(await call('DELETE', path), model.deleted ? 404 : 204, what);
              model.deleted = true;
              break;
            case 'revert': {
              const revisions = (await call('GET', `${path}/revisions?limit=200`)).body.data as RevisionView[];
              const target = revisions[action.pick % revisions.length]!;
              expectStatus(await call('POST', `${path}/revert`, { revisionId: target.revisionId }), 200, what);
              model.main = contentOf(target.data);
              model.deleted = false;
              break;
            }
            case 'versionCreate': {
              const response = await call('POST', `${path}/versions`, { key: action.key, name: action.key });
              if (model.deleted) {
                expectStatus(response, 404, what);
              } else if (model.versions.has(action.key)) {
                expectStatus(response, 409, what);
              } else {
                expectStatus(response, 201, what);
                model.versions.set(action.key, { data: model.main, base: model.main });
              }
              break;
            }
            case 'versionPatch': {
              const version = model.versions.get(action.key);
              // Version data takes a translatable value as a map of the languages it sets.
              const { summary: translated } = action.changes;
              const data = { ...action.changes.fields, ...(translated ? { summary: { [translated.language]: translated.text } } : {}) };
              const response = await call('PATCH', `${path}/versions/${action.key}`, { data });
              expectStatus(response, version ? 200 : 404, what);
              if (version) version.data = written(version.data, action.changes);
              break;
            }
            case 'promote': {
              const version = model.versions.get(action.key);
              const response = await call('POST', `${path}/versions/${action.key}/promote`);
              expectStatus(response, version && !model.deleted ? 200 : 404, what);
              if (version && !model.deleted) {
                // A three-way merge: only what the version changed against its base reaches main,
                // the translatable field language by language.
                const changed = Object.fromEntries(PLAIN_FIELDS.filter((field) => version.data[field] !== version.base[field]).map((field) => [field, version.data[field]]));
                const languages = changedLanguages(version.base.summary, version.data.summary);
                const summary = Object.keys(languages).length > 0 ? { ...(model.main.summary ?? {}), ...languages } : model.main.summary;
                model.main = { ...model.main, ...changed, summary };
                version.data = model.main;
                version.base = model.main;
                expect(contentOf(response.body.data), what).toEqual(model.main);
              }
              break;
            }
            case 'versionDelete': {
              const response = await call('DELETE', `${path}/versions/${action.key}`);
              expectStatus(response, model.versions.delete(action.key) ? 204 : 404, what);
              break;
            }
          }
          model.seen.add(canonical(model.main));
          await expectAgreement(path, model, what);
        }
      }),
      { numRuns: 25 },
    );

    async function expectAgreement(path: string, model: Model, what: string): Promise<void> {
      const revisions = (await call('GET', `${path}/revisions?limit=200`)).body.data as RevisionView[];
      expect(contentOf(revisions[0]!.data), `newest revision's data after ${what}`).toEqual(model.main);
      for (const revision of revisions) {
        expect(model.seen.has(canonical(contentOf(revision.data))), `revision ${revision.version} after ${what}`).toBe(true);
        expect(revision.staged, `staged flag of revision ${revision.version}`).toBe(revision.cause?.draft === true);
      }
      if (model.deleted) {
        expect(revisions[0]!.event, `newest revision after ${what}`).toBe('item.deleted');
        expectStatus(await call('GET', path), 404, what);
        expectStatus(await call('GET', path, undefined, { 'x-svc-draft': 'true' }), 404, what);
        return;
      }
      const main = await call('GET', path);
      expectStatus(main, 200, what);
      expect(contentOf(main.body.data), `main after ${what}`).toEqual(model.main);
      const version = Number(JSON.parse(main.headers.get('etag') ?? '0'));

      const drafted = await call('GET', path, undefined, { 'x-svc-draft': 'true' });
      expect(contentOf(drafted.body.data), `draft after ${what}`).toEqual(model.draft ?? model.main);

      const versions = (await call('GET', `${path}/versions`)).body.data as { key: string; data: Record<string, unknown>; baseVersion: number; mainChanged: boolean }[];
      expect(versions.map((entry) => entry.key).sort(), `versions after ${what}`).toEqual([...model.versions.keys()].sort());
      for (const entry of versions) {
        expect(contentOf(entry.data), `version ${entry.key} after ${what}`).toEqual(model.versions.get(entry.key)!.data);
        expect(entry.mainChanged, `mainChanged of ${entry.key} after ${what}`).toBe(entry.baseVersion !== version);
      }
      expect(revisions[0]!.version, `newest revision after ${what}`).toBe(version);
    }
  });
});
