// Field encryption over real HTTP and PostgreSQL: every pii/phi value is sealed in sensitive_values
// and nothing else the service stores (the log, every read model) ever holds it; administrators and
// holders of `read_decrypted` read the plaintext, any other reader `[encrypted]` (null for a
// non-string GraphQL scalar); a value that will not open fails the request closed, audited.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MASKED } from '../../../domain/privacy/sealedReference.ts';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createMember, createRole, grant, withHelpers, type AccessSite, type RuleInput } from '../access/support.ts';
import { feedCaughtUp } from '../cdc/support.ts';
import { dataOf, graphqlAs } from '../graphql/support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

const REFERENCE = /^svc:sealed:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A word no table holds by chance: letters g-v only, so not even in a hex dump of bytes. */
function marker(): string {
  return [...randomBytes(6).toString('hex')].map((digit) => String.fromCharCode(103 + parseInt(digit, 16))).join('');
}

/**
 * A site with `patients` (name; email pii; diagnosis phi; age integer pii; birthday date pii) and
 * `visits` (note, patient m2o → patients).
 */
async function patientSite(): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service, 'enc'));
  await createCollection(service, site, 'patients', [
    { field: 'name', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
    { field: 'diagnosis', type: 'text', sensitivity: 'phi' },
    { field: 'age', type: 'integer', sensitivity: 'pii' },
    { field: 'birthday', type: 'date', sensitivity: 'pii' },
  ]);
  await createCollection(service, site, 'visits', [
    { field: 'note', type: 'string' },
    { field: 'patient', type: 'uuid' },
  ]);
  await createRelation(service, site, { kind: 'm2o', collection: 'visits', field: 'patient', relatedCollection: 'patients', relatedField: 'visits', onDelete: 'set null' });
  return site;
}

/** A member whose role holds these rules. */
async function memberWith(site: AccessSite, rules: RuleInput[]): Promise<string> {
  const role = await createRole(site);
  await grant(site, { roleId: role.id }, rules);
  return (await createMember(service, site, { roleId: role.id })).token;
}

const READ_BOTH: RuleInput[] = [
  { collection: 'patients', action: 'read' },
  { collection: 'visits', action: 'read' },
  { action: 'cdc:subscribe' },
];

/** Waits for every async read model (search, change feed, audit, history) to catch up. */
async function caughtUp(): Promise<void> {
  await service.context.daemon.drain();
  await feedCaughtUp(service);
}

/** The tables (any schema but the catalogue's) with a site_id column. */
async function siteTables(): Promise<string[]> {
  const { rows } = await owner.query<{ name: string }>(`
    SELECT format('%I.%I', c.table_schema, c.table_name) AS name
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.column_name = 'site_id' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
     ORDER BY 1`);
  return rows.map((row) => row.name);
}

/** `table: marker` for each table holding, in some row of the site, one of the markers. */
async function leaks(siteId: string, markers: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of await siteTables()) {
    const { rows } = await owner.query<{ word: string }>(
      `SELECT word FROM unnest($2::text[]) AS word WHERE EXISTS (SELECT 1 FROM ${table} x WHERE x.site_id = $1 AND strpos(lower(x::text), word) > 0)`,
      [siteId, markers],
    );
    found.push(...rows.map((row) => `${table}: ${row.word}`));
  }
  return found;
}

async function rowCount(table: string, siteId: string): Promise<number> {
  const { rows } = await owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE site_id = $1`, [siteId]);
  return rows[0]!.n;
}

/** Every value of these sensitive fields in every event of the item: references, never values. */
async function eventValues(siteId: string, collection: string, itemId: string, fields: readonly string[]): Promise<unknown[]> {
  const { rows } = await owner.query<{ data: Record<string, Record<string, unknown> | null> }>(
    'SELECT data FROM events WHERE site_id = $1 AND stream_id LIKE $2 ORDER BY position',
    [siteId, `${siteId}/item%/${collection}/${itemId}%`],
  );
  const values: unknown[] = [];
  for (const { data } of rows) {
    for (const key of ['snapshot', 'delta', 'draft', 'data', 'changes']) {
      const content = data[key];
      if (!content || typeof content !== 'object') continue;
      for (const field of fields) if (content[field] !== undefined && content[field] !== null) values.push(content[field]);
    }
  }
  return values;
}

describe('what the service stores', () => {
  it('keeps no pii/phi plaintext in the log or any read model after create, update, draft, revert, version create/edit/promote and bulk create', async () => {
    const site = await patientSite();
    const words = Array.from({ length: 8 }, marker);
    const [first, second, draft, inVersion, bulkOne, bulkTwo, diagnosis, nameWord] = words as [string, string, string, string, string, string, string, string];
    const email = (word: string) => `${word}@example.test`;

    // Integer and date pii values are on the bulk items only: reverting or promoting them is its own test below.
    const created = await site.admin('POST', '/items/patients', { name: `Pat ${nameWord}`, email: email(first), diagnosis: `a ${diagnosis} condition` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    // The write answer shows the administrator the values written.
    expect(created.body.data).toMatchObject({ email: email(first), diagnosis: `a ${diagnosis} condition` });

    const updated = await site.admin('PATCH', `/items/patients/${id}`, { email: email(second) });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data.email).toBe(email(second));
    const staged = await site.as(site.adminToken, 'PATCH', `/items/patients/${id}`, { email: email(draft) }, { 'x-svc-draft': 'true' });
    expect(staged.status, JSON.stringify(staged.body)).toBe(200);

    const revisions = await site.admin('GET', `/items/patients/${id}/revisions?limit=100`);
    expect(revisions.status, JSON.stringify(revisions.body)).toBe(200);
    const original = revisions.body.data.at(-1);
    expect(original.version).toBe(1);
    expect(original.data.email).toBe(email(first));
    const reverted = await site.admin('POST', `/items/patients/${id}/revert`, { revisionId: original.revisionId });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.data).toMatchObject({ email: email(first), diagnosis: `a ${diagnosis} condition` });

    const version = await site.admin('POST', `/items/patients/${id}/versions`, { key: 'draft', name: 'Draft' });
    expect(version.status, JSON.stringify(version.body)).toBe(201);
    expect(version.body.data.data.email).toBe(email(first));
    const edited = await site.admin('PATCH', `/items/patients/${id}/versions/draft`, { data: { email: email(inVersion) } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.data.data.email).toBe(email(inVersion));
    const promoted = await site.admin('POST', `/items/patients/${id}/versions/draft/promote`);
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body.data.email).toBe(email(inVersion));

    const bulk = await site.admin('POST', '/items/patients', [
      { name: 'Bulk one', email: email(bulkOne), age: 30, birthday: '1994-05-06' },
      { name: 'Bulk two', email: email(bulkTwo), diagnosis: `bulk ${diagnosis}` },
    ]);
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    expect(bulk.body.data.map((item: { email: string }) => item.email)).toEqual([email(bulkOne), email(bulkTwo)]);
    const visit = await createItem(site, 'visits', { note: 'check-up', patient: id });
    await caughtUp();

    // Nothing but sensitive_values holds any of the values (its rows are sealed bytes).
    expect(await leaks(site.siteId, words.filter((word) => word !== nameWord))).toEqual([]);
    // The scan is not vacuous: the name, which is not sensitive, is found, and each read model has the site's rows.
    expect(await leaks(site.siteId, [nameWord])).toEqual(expect.arrayContaining(['public.events: ' + nameWord, 'public.items: ' + nameWord, 'public.search_documents: ' + nameWord]));
    for (const table of ['events', 'items', 'item_revisions', 'item_history', 'item_versions', 'item_drafts', 'cdc_feed', 'search_documents']) {
      expect(await rowCount(table, site.siteId), table).toBeGreaterThan(0);
    }

    // Events and the read models hold references in the values' place.
    const inEvents = await eventValues(site.siteId, 'patients', id, ['email', 'diagnosis', 'age', 'birthday']);
    expect(inEvents.length).toBeGreaterThan(8);
    for (const value of inEvents) expect(value).toMatch(REFERENCE);
    for (const bulkItem of bulk.body.data as { id: string }[]) {
      const values = await eventValues(site.siteId, 'patients', bulkItem.id, ['email', 'diagnosis', 'age', 'birthday']);
      expect(values.length).toBeGreaterThanOrEqual(2);
      for (const value of values) expect(value).toMatch(REFERENCE);
    }
    const { rows: stored } = await owner.query<{ data: Record<string, unknown> }>('SELECT data FROM items WHERE site_id = $1 AND collection = $2 ORDER BY id', [site.siteId, 'patients']);
    expect(stored).toHaveLength(3);
    for (const { data } of stored) {
      for (const field of ['email', 'diagnosis', 'age', 'birthday']) if (data[field] !== undefined && data[field] !== null) expect(data[field], field).toMatch(REFERENCE);
    }
    // The revert put back the reference of the first revision, not a copy of the value.
    const { rows: emails } = await owner.query<{ type: string; email: string }>(
      "SELECT type, data->'snapshot'->>'email' AS email FROM events WHERE site_id = $1 AND stream_id = $2 ORDER BY position",
      [site.siteId, `${site.siteId}/item/patients/${id}`],
    );
    expect(emails.find((event) => event.type === 'item.reverted')!.email).toBe(emails.find((event) => event.type === 'item.created')!.email);
    const { rows: sealed } = await owner.query<{ n: number; fields: string[] }>(
      'SELECT count(*)::int AS n, array_agg(DISTINCT field ORDER BY field) AS fields FROM sensitive_values WHERE site_id = $1 AND collection = $2',
      [site.siteId, 'patients'],
    );
    expect(sealed[0]!.fields).toEqual(['age', 'birthday', 'diagnosis', 'email']);
    expect(sealed[0]!.n).toBeGreaterThanOrEqual(9);

    // And the administrator reads every value back, by every read path.
    const read = await site.admin('GET', `/items/patients/${id}`);
    expect(read.body.data).toMatchObject({ name: `Pat ${nameWord}`, email: email(inVersion), diagnosis: `a ${diagnosis} condition` });
    const bulkRead = await site.admin('GET', `/items/patients/${bulk.body.data[0].id}`);
    expect(bulkRead.body.data).toMatchObject({ email: email(bulkOne), age: 30, birthday: expect.stringMatching(/^1994-05-06/) });
    const listed = await site.admin('GET', '/items/patients?sort=name');
    expect(listed.body.data.map((item: { email: string }) => item.email)).toEqual([email(bulkOne), email(bulkTwo), email(inVersion)]);
    const related = await site.admin('GET', `/items/visits/${visit.id}?fields=note,patient.email,patient.diagnosis`);
    expect(related.body.data).toMatchObject({ note: 'check-up', patient: { email: email(inVersion), diagnosis: `a ${diagnosis} condition` } });
    const allRevisions = await site.admin('GET', `/items/patients/${id}/revisions?limit=100`);
    expect(allRevisions.body.data.map((revision: { data: { email: string } }) => revision.data.email)).toEqual(
      expect.arrayContaining([email(first), email(second), email(inVersion)]),
    );
    const versionRead = await site.admin('GET', `/items/patients/${id}/versions/draft`);
    expect(versionRead.body.data.data.email).toBe(email(inVersion));
    const found = await site.admin('GET', `/search?q=${nameWord}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0].item).toMatchObject({ id, email: email(inVersion) });
    const feed = await site.admin('GET', '/cdc/events?limit=500');
    const creation = feed.body.data.find((entry: { itemId: string; type: string }) => entry.itemId === id && entry.type === 'items.create');
    expect(creation.snapshot).toMatchObject({ email: email(first), diagnosis: `a ${diagnosis} condition` });
  });

  it('reverts an item whose integer and date pii fields hold values, and reads them back', async () => {
    const site = await patientSite();
    const patient = await createItem(site, 'patients', { name: 'Pat', email: 'pat@example.test', age: 41, birthday: '1984-02-03' });
    expect((await site.admin('PATCH', `/items/patients/${patient.id}`, { age: 42, email: 'new@example.test' })).status).toBe(200);
    const revisions = await site.admin('GET', `/items/patients/${patient.id}/revisions`);
    const reverted = await site.admin('POST', `/items/patients/${patient.id}/revert`, { revisionId: revisions.body.data.at(-1).revisionId });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.data).toMatchObject({ email: 'pat@example.test', age: 41, birthday: expect.stringMatching(/^1984-02-03/) });
    expect((await site.admin('GET', `/items/patients/${patient.id}`)).body.data).toMatchObject({ email: 'pat@example.test', age: 41 });
  });

  it('promotes a version that changed an integer pii field, and reads it back', async () => {
    const site = await patientSite();
    const patient = await createItem(site, 'patients', { name: 'Pat', email: 'pat@example.test', age: 41 });
    expect((await site.admin('POST', `/items/patients/${patient.id}/versions`, { key: 'draft', name: 'Draft' })).status).toBe(201);
    const edited = await site.admin('PATCH', `/items/patients/${patient.id}/versions/draft`, { data: { age: 43 } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.data.data.age).toBe(43);
    const promoted = await site.admin('POST', `/items/patients/${patient.id}/versions/draft/promote`);
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body.data).toMatchObject({ email: 'pat@example.test', age: 43 });
  });

  it('never finds an item by its sensitive values in search, while the same word in a plain field is found', async () => {
    const site = await patientSite();
    const word = marker();
    const nameWord = marker();
    const patient = await createItem(site, 'patients', { name: `Searchable ${nameWord}`, email: `${word}@example.test`, diagnosis: `${word} syndrome` });
    // The same word in a field that is not sensitive, of another collection: the search must find that one.
    const visit = await createItem(site, 'visits', { note: `follow-up on ${word} syndrome`, patient: patient.id });
    await caughtUp();
    const found = await site.admin('GET', `/search?q=${word}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.data.map((hit: { collection: string; id: string }) => [hit.collection, hit.id])).toEqual([['visits', visit.id]]);
    const inPatients = await site.admin('GET', `/search?q=${word}&collection=patients`);
    expect(inPatients.status, JSON.stringify(inPatients.body)).toBe(200);
    expect(inPatients.body.data).toEqual([]);
    // The patient is indexed (found by its name), and its hit shows the administrator the sealed values.
    const byName = await site.admin('GET', `/search?q=${nameWord}&collection=patients`);
    expect(byName.body.data.map((hit: { id: string }) => hit.id)).toEqual([patient.id]);
    expect(byName.body.data[0].item).toMatchObject({ email: `${word}@example.test`, diagnosis: `${word} syndrome` });
  });
});

describe('who reads the plaintext', () => {
  async function siteWithPatient() {
    const site = await patientSite();
    const email = `${marker()}@example.test`;
    const diagnosis = `a ${marker()} condition`;
    const patient = await createItem(site, 'patients', { name: 'Pat', email, diagnosis, age: 41, birthday: '1984-02-03' });
    const visit = await createItem(site, 'visits', { note: 'check-up', patient: patient.id });
    return { site, patient, visit, email, diagnosis };
  }

  it('masks every pii/phi value as [encrypted] for a reader without read_decrypted, on every read path', async () => {
    const { site, patient, visit, email, diagnosis } = await siteWithPatient();
    expect(MASKED).toBe('[encrypted]');
    const token = await memberWith(site, READ_BOTH);
    const masked = { id: patient.id, name: 'Pat', email: MASKED, diagnosis: MASKED, age: MASKED, birthday: MASKED };

    const one = await site.as(token, 'GET', `/items/patients/${patient.id}`);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data).toMatchObject(masked);
    const list = await site.as(token, 'GET', '/items/patients');
    expect(list.body.data).toEqual([expect.objectContaining(masked)]);
    const related = await site.as(token, 'GET', `/items/visits/${visit.id}?fields=note,patient.name,patient.email,patient.age`);
    expect(related.body.data).toMatchObject({ note: 'check-up', patient: { name: 'Pat', email: MASKED, age: MASKED } });
    const listRelated = await site.as(token, 'GET', '/items/visits?fields=patient.*');
    expect(listRelated.body.data[0].patient).toMatchObject(masked);

    await caughtUp();
    const found = await site.as(token, 'GET', '/search?q=Pat');
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.data[0].item).toMatchObject(masked);
    const feed = await site.as(token, 'GET', '/cdc/events?limit=500');
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    const entry = feed.body.data.find((change: { itemId: string }) => change.itemId === patient.id);
    expect(entry.snapshot).toMatchObject(masked);

    for (const response of [one, list, related, listRelated, found, feed]) {
      expect(JSON.stringify(response.body)).not.toContain(email);
      expect(JSON.stringify(response.body)).not.toContain(diagnosis);
      expect(JSON.stringify(response.body)).not.toContain('svc:sealed:');
    }
  });

  it('masks the values in the history a reader without read_decrypted may read', async () => {
    const { site, patient, email } = await siteWithPatient();
    expect((await site.admin('PATCH', `/items/patients/${patient.id}`, { email: 'second@example.test' })).status).toBe(200);
    expect((await site.admin('POST', `/items/patients/${patient.id}/versions`, { key: 'draft', name: 'Draft' })).status).toBe(201);
    const token = await memberWith(site, [{ collection: 'patients', action: 'read' }, { collection: 'patients', action: 'update' }]);

    const revisions = await site.as(token, 'GET', `/items/patients/${patient.id}/revisions`);
    expect(revisions.status, JSON.stringify(revisions.body)).toBe(200);
    expect(revisions.body.data.map((revision: { data: { email: string } }) => revision.data.email)).toEqual([MASKED, MASKED]);
    expect(revisions.body.data[0].delta.email).toBe(MASKED);
    const versions = await site.as(token, 'GET', `/items/patients/${patient.id}/versions/draft`);
    expect(versions.status, JSON.stringify(versions.body)).toBe(200);
    expect(versions.body.data.data).toMatchObject({ email: MASKED, diagnosis: MASKED });
    for (const response of [revisions, versions]) {
      expect(JSON.stringify(response.body)).not.toContain(email);
      expect(JSON.stringify(response.body)).not.toContain('second@example.test');
      expect(JSON.stringify(response.body)).not.toContain('svc:sealed:');
    }
  });

  it('answers a writer without read_decrypted with masked values, and stores what it wrote', async () => {
    const site = await patientSite();
    const token = await memberWith(site, [
      { collection: 'patients', action: 'create' },
      { collection: 'patients', action: 'read' },
      { collection: 'patients', action: 'update' },
    ]);
    const created = await site.as(token, 'POST', '/items/patients', { name: 'Writer', email: 'w@example.test', age: 50 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Writer', email: MASKED, age: MASKED });
    const patched = await site.as(token, 'PATCH', `/items/patients/${created.body.data.id}`, { email: 'w2@example.test' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ email: MASKED, age: MASKED });
    expect(JSON.stringify([created.body, patched.body])).not.toContain('@example.test');
    const asAdmin = await site.admin('GET', `/items/patients/${created.body.data.id}`);
    expect(asAdmin.body.data).toMatchObject({ email: 'w2@example.test', age: 50 });
  });

  it('keeps the stored value when a writer without read_decrypted sends back the mask it read (as a hash field keeps its mask)', async () => {
    const { site, patient, email, diagnosis } = await siteWithPatient();
    const token = await memberWith(site, [{ collection: 'patients', action: 'read' }, { collection: 'patients', action: 'update' }]);
    const read = (await site.as(token, 'GET', `/items/patients/${patient.id}`)).body.data;
    expect(read.email).toBe(MASKED);
    const saved = await site.as(token, 'PATCH', `/items/patients/${patient.id}`, { name: 'Renamed', email: read.email, diagnosis: read.diagnosis });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const stored = await site.admin('GET', `/items/patients/${patient.id}`);
    expect(stored.body.data).toMatchObject({ name: 'Renamed', email, diagnosis });
  });

  it('shows a field-scoped read_decrypted holder that field only, and a site-wide holder every field', async () => {
    const { site, patient, visit, email, diagnosis } = await siteWithPatient();
    const emailOnly = await memberWith(site, [...READ_BOTH, { collection: 'patients', action: 'read_decrypted', fields: ['email'] }]);
    const scoped = await site.as(emailOnly, 'GET', `/items/patients/${patient.id}`);
    expect(scoped.status, JSON.stringify(scoped.body)).toBe(200);
    expect(scoped.body.data).toMatchObject({ name: 'Pat', email, diagnosis: MASKED, age: MASKED, birthday: MASKED });
    const scopedRelated = await site.as(emailOnly, 'GET', `/items/visits/${visit.id}?fields=patient.email,patient.diagnosis`);
    expect(scopedRelated.body.data).toMatchObject({ patient: { email, diagnosis: MASKED } });
    await caughtUp();
    const feed = await site.as(emailOnly, 'GET', '/cdc/events?limit=500');
    const entry = feed.body.data.find((change: { itemId: string }) => change.itemId === patient.id);
    expect(entry.snapshot).toMatchObject({ email, diagnosis: MASKED });

    const everything = await memberWith(site, [...READ_BOTH, { collection: null, action: 'read_decrypted' }]);
    const full = await site.as(everything, 'GET', `/items/patients/${patient.id}`);
    expect(full.body.data).toMatchObject({ name: 'Pat', email, diagnosis, age: 41, birthday: expect.stringMatching(/^1984-02-03/) });
    const fullRelated = await site.as(everything, 'GET', `/items/visits/${visit.id}?fields=patient.email,patient.diagnosis`);
    expect(fullRelated.body.data).toMatchObject({ patient: { email, diagnosis } });

    // A collection-wide rule without a field list decrypts every field of that collection.
    const collectionWide = await memberWith(site, [...READ_BOTH, { collection: 'patients', action: 'read_decrypted' }]);
    expect((await site.as(collectionWide, 'GET', `/items/patients/${patient.id}`)).body.data).toMatchObject({ email, diagnosis, age: 41 });
  });

  it('decrypts only the rows a read_decrypted rule’s conditions reach', async () => {
    const { site, patient, email } = await siteWithPatient();
    const other = await createItem(site, 'patients', { name: 'Other', email: 'other@example.test' });
    const token = await memberWith(site, [...READ_BOTH, { collection: 'patients', action: 'read_decrypted', fields: ['email'], conditions: { name: { _eq: 'Pat' } } }]);
    const mine = await site.as(token, 'GET', `/items/patients/${patient.id}`);
    expect(mine.body.data.email).toBe(email);
    const theirs = await site.as(token, 'GET', `/items/patients/${other.id}`);
    expect(theirs.status).toBe(200);
    // The rule reaches Pat's row only: Other's email stays masked.
    expect(theirs.body.data.email).toBe(MASKED);
  });

  it('masks in GraphQL as on REST: [encrypted] for strings, null for integer and date fields', async () => {
    const { site, patient, email, diagnosis } = await siteWithPatient();
    const query = `{ patients_by_id(id: "${patient.id}") { name email diagnosis age birthday } visits { note patient { email age } } }`;

    const admin = dataOf(await graphqlAs(service, site)(query));
    expect(admin.patients_by_id).toMatchObject({ name: 'Pat', email, diagnosis, age: 41 });
    expect(admin.patients_by_id.birthday).toMatch(/^1984-02-03/);
    expect(admin.visits).toEqual([{ note: 'check-up', patient: { email, age: 41 } }]);

    const reader = dataOf(await graphqlAs(service, site, await memberWith(site, READ_BOTH))(query));
    expect(reader.patients_by_id).toEqual({ name: 'Pat', email: MASKED, diagnosis: MASKED, age: null, birthday: null });
    expect(reader.visits).toEqual([{ note: 'check-up', patient: { email: MASKED, age: null } }]);
    const listed = dataOf(await graphqlAs(service, site, await memberWith(site, READ_BOTH))('{ patients { email age _data } }'));
    expect(listed.patients).toEqual([{ email: MASKED, age: null, _data: expect.objectContaining({ email: MASKED, age: MASKED }) }]);
    expect(JSON.stringify(listed)).not.toContain(email);

    const scoped = dataOf(await graphqlAs(service, site, await memberWith(site, [...READ_BOTH, { collection: 'patients', action: 'read_decrypted', fields: ['email', 'age'] }]))(query));
    expect(scoped.patients_by_id).toEqual({ name: 'Pat', email, diagnosis: MASKED, age: 41, birthday: null });
  });
});

describe('a value that will not open', () => {
  async function auditedFailures(site: AccessSite) {
    await service.context.daemon.drain();
    const response = await site.admin('GET', '/audit?limit=200&filter[action][_eq]=decryption_failed');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data as { action: string; actor: { kind: string; id: string | null } }[];
  }

  async function failureEvents(siteId: string) {
    const { rows } = await owner.query<{ data: Record<string, unknown> }>("SELECT data FROM events WHERE site_id = $1 AND type = 'decryption_failed' ORDER BY position", [siteId]);
    return rows.map((row) => row.data);
  }

  it('fails the request closed with 500 DECRYPTION_FAILED when the sealed bytes were tampered with, and audits it', async () => {
    const site = await patientSite();
    const patient = await createItem(site, 'patients', { name: 'Pat', email: 'pat@example.test', diagnosis: 'fine' });
    expect(await auditedFailures(site)).toEqual([]);
    const { rowCount: changed } = await owner.query(
      `UPDATE sensitive_values SET sealed = set_byte(sealed, length(sealed) - 1, get_byte(sealed, length(sealed) - 1) # 1)
        WHERE site_id = $1 AND item_id = $2 AND field = 'email'`,
      [site.siteId, patient.id],
    );
    expect(changed).toBe(1);

    const read = await site.admin('GET', `/items/patients/${patient.id}`);
    expect(read.status, JSON.stringify(read.body)).toBe(500);
    expect(read.body.errors[0]).toMatchObject({ code: 'DECRYPTION_FAILED', extensions: { collection: 'patients', itemId: patient.id, field: 'email' } });
    expect(read.body.data).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(MASKED);
    const list = await site.admin('GET', '/items/patients');
    expect(list.status).toBe(500);
    expect(list.body.errors[0].code).toBe('DECRYPTION_FAILED');
    const revisions = await site.admin('GET', `/items/patients/${patient.id}/revisions`);
    expect(revisions.status).toBe(500);
    expect(revisions.body.errors[0].code).toBe('DECRYPTION_FAILED');
    // GraphQL answers its own 500 (INTERNAL) with no value in the field's place.
    const answer = await graphqlAs(service, site)(`{ patients_by_id(id: "${patient.id}") { name email } }`);
    expect(answer.errors?.[0]?.extensions.status).toBe(500);
    expect(answer.data?.patients_by_id ?? null).toBeNull();

    const audited = await auditedFailures(site);
    expect(audited.length).toBeGreaterThanOrEqual(4);
    expect(audited.every((entry) => entry.action === 'decryption_failed' && entry.actor.id === site.adminUserId)).toBe(true);
    const [event] = await failureEvents(site.siteId);
    expect(event).toMatchObject({ collection: 'patients', itemId: patient.id, field: 'email', valueId: expect.any(String) });
    expect(JSON.stringify(event)).not.toContain('pat@example.test');

    // A reader who may not decrypt never opens the value: it sees the mask, and nothing is audited for it.
    const before = (await failureEvents(site.siteId)).length;
    const token = await memberWith(site, [{ collection: 'patients', action: 'read' }]);
    const masked = await site.as(token, 'GET', `/items/patients/${patient.id}`);
    expect(masked.status).toBe(200);
    expect(masked.body.data.email).toBe(MASKED);
    expect((await failureEvents(site.siteId)).length).toBe(before);
  });

  it('fails closed when a sealed row was moved to another record', async () => {
    const site = await patientSite();
    const pat = await createItem(site, 'patients', { name: 'Pat', email: 'pat@example.test' });
    const sam = await createItem(site, 'patients', { name: 'Sam', email: 'sam@example.test' });
    const { rowCount: moved } = await owner.query("UPDATE sensitive_values SET item_id = $3 WHERE site_id = $1 AND item_id = $2 AND field = 'email'", [site.siteId, pat.id, sam.id]);
    expect(moved).toBe(1);

    const read = await site.admin('GET', `/items/patients/${pat.id}`);
    expect(read.status, JSON.stringify(read.body)).toBe(500);
    expect(read.body.errors[0]).toMatchObject({ code: 'DECRYPTION_FAILED', extensions: { itemId: pat.id, field: 'email' } });
    expect((await site.admin('GET', `/items/patients/${sam.id}`)).body.data.email).toBe('sam@example.test');
    expect((await auditedFailures(site)).length).toBeGreaterThanOrEqual(1);
    expect(await failureEvents(site.siteId)).toEqual([expect.objectContaining({ itemId: pat.id, field: 'email' })]);
  });

  it('fails closed in a relation read too', async () => {
    const site = await patientSite();
    const pat = await createItem(site, 'patients', { name: 'Pat', email: 'pat@example.test' });
    const visit = await createItem(site, 'visits', { note: 'x', patient: pat.id });
    await owner.query("UPDATE sensitive_values SET sealed = set_byte(sealed, 0, get_byte(sealed, 0) # 1) WHERE site_id = $1 AND item_id = $2 AND field = 'email'", [site.siteId, pat.id]);
    const read = await site.admin('GET', `/items/visits/${visit.id}?fields=note,patient.email`);
    expect(read.status, JSON.stringify(read.body)).toBe(500);
    expect(read.body.errors[0].code).toBe('DECRYPTION_FAILED');
  });
});
