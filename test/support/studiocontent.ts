// Seeds of the Studio's content tests: a collection of every field kind (articles), the authors its
// m2o points at (with the o2m back), a secret collection, items, and members with roles.
import { expect } from 'vitest';
import { grant, createRole, withHelpers, createMember, type AccessSite, type Member } from '../modules/access/support.ts';
import { createCollection, createRelation } from './contentModel.ts';
import type { TestService, TestSite } from './testService.ts';

export type { AccessSite, Member };

export async function contentSite(service: TestService, site: TestSite): Promise<AccessSite> {
  const helpers = withHelpers(service, site);
  await createCollection(service, site, 'authors', [{ field: 'name', type: 'string' }]);
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string', required: true },
    { field: 'body', type: 'text', interface: 'markdown' },
    { field: 'summary', type: 'text', interface: 'richText' },
    { field: 'rating', type: 'integer', options: { min: 0, max: 5 } },
    { field: 'score', type: 'float' },
    { field: 'price', type: 'decimal' },
    { field: 'big', type: 'bigInteger' },
    { field: 'published', type: 'boolean' },
    { field: 'day', type: 'date' },
    { field: 'at', type: 'time' },
    { field: 'publishedAt', type: 'dateTime' },
    { field: 'meta', type: 'json' },
    { field: 'category', type: 'string', options: { choices: ['news', 'blog', 'howto'] } },
    { field: 'tint', type: 'color' },
    { field: 'headline', type: 'string', options: { translatable: true } },
    { field: 'author', type: 'uuid' },
    { field: 'images', type: 'files' },
  ]);
  await createRelation(service, site, { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'set null' });
  await createCollection(service, site, 'secrets', [{ field: 'code', type: 'string' }]);
  return helpers;
}

/** Creates items in one bulk request; answers them. */
export async function seedItems(site: AccessSite, collection: string, items: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const created = await site.admin('POST', `/items/${collection}`, items);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

/** A member whose role may read (and, when asked, write) these collections. */
export async function memberWith(site: AccessSite, collections: string[], write = false): Promise<Member> {
  const role = await createRole(site);
  const actions = write ? ['read', 'create', 'update'] : ['read'];
  await grant(site, { roleId: role.id }, collections.flatMap((collection) => actions.map((action) => ({ collection, action, fields: ['*'] }))));
  return createMember(site.service, site, { roleId: role.id });
}
