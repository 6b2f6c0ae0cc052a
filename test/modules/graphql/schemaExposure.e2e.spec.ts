// A caller's GraphQL schema holds only the fields its role may read (security review, issue 27
// finding 10): a hidden field is absent from introspection and from validation, not present and
// null; an administrator sees every field; a change of the role's grants changes its schema.
import { describe, expect, it } from 'vitest';
import { accessFor, type Access } from '../../../src/access/access.ts';
import { createGraphqlSchemaCache } from '../../../src/modules/graphql/schemaCache.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createMember, createRole, grant, withHelpers, type AccessSite } from '../access/support.ts';
import { dataOf, errorOf, graphqlAs, type GraphqlCaller } from './support.ts';

const service = await startTestServiceForFile();

async function siteWithArticles(): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service, 'gqlexp'));
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'salary', type: 'integer' },
  ]);
  return site;
}

async function fieldsOf(gql: GraphqlCaller, type: string): Promise<string[]> {
  const answer = dataOf(await gql(`{ __type(name: "${type}") { fields { name } } }`));
  return answer.__type.fields.map((field: { name: string }) => field.name).sort();
}

async function schemaFieldNames(gql: GraphqlCaller): Promise<string[]> {
  const answer = dataOf(await gql('{ __schema { types { name fields { name } } } }'));
  return answer.__schema.types.flatMap((type: { fields: { name: string }[] | null }) => (type.fields ?? []).map((field) => field.name));
}

describe('the schema a role is shown', () => {
  it('leaves out of introspection a field the role may not read, which an administrator sees', async () => {
    const site = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }]);
    const member = await createMember(service, site, { roleId: role.id });
    const gql = graphqlAs(service, site, member.token);

    expect(await fieldsOf(gql, 'articles')).toEqual(['_data', 'id', 'title']);
    expect(await schemaFieldNames(gql)).not.toContain('salary');
    expect(await fieldsOf(graphqlAs(service, site), 'articles')).toEqual(
      ['_data', 'createdAt', 'id', 'salary', 'sort', 'status', 'title', 'updatedAt', 'userCreated', 'userUpdated'].sort(),
    );
    // Asking for it is GraphQL's own validation error, as for a field that does not exist.
    const refused = errorOf(await gql('{ articles { id salary } }'));
    expect(refused).toMatchObject({ code: 'VALIDATION', status: 400 });
    expect(refused.message).toContain('Cannot query field "salary"');
  });

  it('follows a change of the role\'s grants on the next request', async () => {
    const site = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }]);
    const member = await createMember(service, site, { roleId: role.id });
    const gql = graphqlAs(service, site, member.token);
    expect(await fieldsOf(gql, 'articles')).not.toContain('salary');

    const wider = await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['salary'] }]);
    expect(await fieldsOf(gql, 'articles')).toContain('salary');
    expect(dataOf(await gql('{ articles { salary } }'))).toEqual({ articles: [] });

    expect((await site.admin('DELETE', `/policies/${wider}`)).status).toBe(204);
    expect(await fieldsOf(gql, 'articles')).not.toContain('salary');
  });

  it('gives two roles that read the same fields the same answers, and a third its own', async () => {
    const site = await siteWithArticles();
    const first = await createRole(site);
    const second = await createRole(site);
    const third = await createRole(site);
    await grant(site, { roleId: first.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }]);
    await grant(site, { roleId: second.id }, [{ collection: 'articles', action: 'read', fields: ['title', 'id'] }]);
    await grant(site, { roleId: third.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'salary'] }]);
    const callers = await Promise.all([first, second, third].map(async (role) => graphqlAs(service, site, (await createMember(service, site, { roleId: role.id })).token)));
    const [a, b, c] = await Promise.all(callers.map((gql) => fieldsOf(gql, 'articles')));
    expect(a).toEqual(['_data', 'id', 'title']);
    expect(b).toEqual(a);
    expect(c).toEqual(['_data', 'id', 'salary']);
  });

  it('builds one schema per set of readable fields, shared by the roles that read them, and none per administrator request', async () => {
    const site = await siteWithArticles();
    const [first, second, third] = [await createRole(site), await createRole(site), await createRole(site)];
    await grant(site, { roleId: first.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }]);
    await grant(site, { roleId: second.id }, [{ collection: 'articles', action: 'read', fields: ['title'] }]);
    await grant(site, { roleId: third.id }, [{ collection: 'articles', action: 'read', fields: ['salary'] }]);
    const schema = await service.context.schemas.site(site.siteId);
    const accessOf = (roleId: string | null, admin = false) =>
      accessFor(service.context, site.siteId, { kind: 'user', userId: crypto.randomUUID(), roleId, admin, sessionId: null, via: 'session', realm: 'studio' });
    const cache = createGraphqlSchemaCache(2);

    const built = cache.schemaFor(schema, await accessOf(first.id));
    expect(cache.schemaFor(schema, await accessOf(second.id))).toBe(built);
    expect(cache.schemaFor(schema, await accessOf(third.id))).not.toBe(built);
    expect(cache.size).toBe(2);

    const admin = await accessOf(null, true);
    const watched: Access = { ...admin, can: () => expect.unreachable('an administrator needs no exposure'), allowedFields: () => expect.unreachable('nor field lists') };
    cache.schemaFor(schema, admin);
    const adminSchema = cache.schemaFor(schema, watched);
    expect(adminSchema.schema.getType('articles')).toBeDefined();
    // Bounded: the least recently used went out.
    expect(cache.size).toBe(2);
  });
});
