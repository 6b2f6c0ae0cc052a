// Erasure execution (/admin/erasure/:id/execute): it hard-deletes the matching records and destroys
// their sealed pii/phi values, so that no copy of them is readable anywhere (the database holds none
// in plaintext, before or after); the signed receipt verifies offline; another site never sees nor
// reaches the erasure. The request and dual control are in erasure.e2e.spec.ts.
import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem } from '../access/support.ts';
import { erasureSite, expectError, ok, plaintextHits, requestErasure, sealedCount, unique } from './support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

describe('execution', () => {
  it('erases exactly the matching records: no pii of theirs readable anywhere, every other record untouched', async () => {
    const { site, second } = await erasureSite(service);
    const email = `${unique('erased')}@example.test`;
    const diagnoses = [unique('diagnosis'), unique('diagnosis'), unique('diagnosis'), unique('diagnosis')];
    const versionEmail = `${unique('version')}@example.test`;
    const keptEmail = `${unique('kept')}@example.test`;
    const keptDiagnosis = unique('kept-diagnosis');
    const keptName = unique('kept-name');

    const first = await createItem(site, 'patients', { name: 'Erased One', city: 'Lyon', email, diagnosis: diagnoses[0] });
    await ok(site.admin('PATCH', `/items/patients/${first.id}`, { diagnosis: diagnoses[1] }));
    await ok(site.admin('POST', `/items/patients/${first.id}/versions`, { key: 'draft', name: 'Draft' }), 201);
    await ok(site.admin('PATCH', `/items/patients/${first.id}/versions/draft`, { data: { email: versionEmail, diagnosis: diagnoses[2] } }));
    const secondRecord = await createItem(site, 'patients', { name: 'Erased Two', city: 'Nice', email });
    // A soft-deleted record of the subject still holds their data: it is erased too.
    const deleted = await createItem(site, 'patients', { name: 'Erased Deleted', email, diagnosis: diagnoses[3] });
    expect((await site.admin('DELETE', `/items/patients/${deleted.id}`)).status).toBe(204);
    const kept = await createItem(site, 'patients', { name: keptName, city: 'Lyon', email: keptEmail, diagnosis: keptDiagnosis });
    // The same address in another collection is not the request's subject.
    const note = await createItem(site, 'notes', { text: 'a note', contact: email });
    const erasedIds = [first.id, secondRecord.id, deleted.id];
    const sealedBefore = await sealedCount(owner, site, erasedIds);
    expect(sealedBefore).toBeGreaterThanOrEqual(7);
    const keptSealed = await sealedCount(owner, site, [kept.id, note.id]);

    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });
    expect(erasure.matchedCount).toBe(3);
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    const executed = await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`));
    expect(executed).toMatchObject({ status: 'executed', recordCount: 3, shreddedValues: sealedBefore });

    // The erased records are gone, from every read path.
    for (const id of erasedIds) expectError(await site.admin('GET', `/items/patients/${id}`), 404, 'RECORD_NOT_FOUND');
    const items = await owner.query<{ id: string }>(sql`SELECT id FROM items WHERE site_id = ${site.siteId} AND id = ANY(${erasedIds}::text[])`);
    expect(items).toEqual([]);
    expect(await sealedCount(owner, site, erasedIds)).toBe(0);
    const list = await ok(site.admin('GET', '/items/patients'));
    expect(list.map((item: { id: string }) => item.id)).toEqual([kept.id]);

    // Their revisions and named versions are kept, their other fields readable, and the pii in them
    // reads as null (its references point at nothing); the list of versions needs the live item.
    const revisions = await site.admin('GET', `/items/patients/${first.id}/revisions`);
    expect(revisions.status, JSON.stringify(revisions.body)).toBe(200);
    expect(revisions.body.data.map((revision: { event: string; version: number }) => [revision.event, revision.version])).toEqual([
      ['item.hard_deleted', 3],
      ['item.updated', 2],
      ['item.created', 1],
    ]);
    for (const revision of revisions.body.data) {
      expect(revision.data).toMatchObject({ id: first.id, name: 'Erased One', city: 'Lyon', email: null, diagnosis: null });
      for (const content of [revision.delta, revision.draft]) {
        if (content) {
          expect(content.email ?? null).toBeNull();
          expect(content.diagnosis ?? null).toBeNull();
        }
      }
    }
    const versions = await site.admin('GET', `/items/patients/${first.id}/versions`);
    expectError(versions, 404, 'RECORD_NOT_FOUND');
    const version = await site.admin('GET', `/items/patients/${first.id}/versions/draft`);
    expect(version.status, JSON.stringify(version.body)).toBe(200);
    expect(version.body.data).toMatchObject({ key: 'draft', item: first.id, data: { name: 'Erased One', city: 'Lyon', email: null, diagnosis: null } });
    for (const response of [revisions, versions, version]) {
      for (const value of [email, versionEmail, ...diagnoses]) expect(JSON.stringify(response.body)).not.toContain(value);
    }

    // The rest of the collection, and the other collection, are untouched and still read with their pii.
    expect(await ok(site.admin('GET', `/items/patients/${kept.id}`))).toMatchObject({ name: keptName, email: keptEmail, diagnosis: keptDiagnosis });
    expect(await ok(site.admin('GET', `/items/notes/${note.id}`))).toMatchObject({ text: 'a note', contact: email });
    expect(await sealedCount(owner, site, [kept.id, note.id])).toBe(keptSealed);

    // The log records the erasure by count and ids, never a value; the audit shows it and still verifies.
    const [erasedEvent] = await owner.query<{ data: Record<string, unknown>; text: string }>(sql`
      SELECT data, data::text || metadata::text AS text FROM events WHERE site_id = ${site.siteId} AND type = 'data_erased'`);
    expect(erasedEvent!.data).toMatchObject({ erasureId: erasure.id, collection: 'patients', subjectHash: erasure.subjectHash, recordCount: 3, shreddedValues: sealedBefore });
    expect([...(erasedEvent!.data.recordIds as string[])].sort()).toEqual([...erasedIds].sort());
    for (const value of [email, versionEmail, ...diagnoses]) expect(erasedEvent!.text).not.toContain(value);
    await service.context.daemon.drain();
    const audit = await site.admin('GET', '/audit?filter[action][_eq]=data_erased');
    expect(audit.status, JSON.stringify(audit.body)).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ action: 'data_erased', actor: { kind: 'user', id: site.adminUserId } });
    const verified = await site.admin('GET', '/audit/verify');
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.data.valid, JSON.stringify(verified.body.data)).toBe(true);
    // The report names the erasure, so that the hard-deleted records read as erased on purpose.
    expect(verified.body.data.erasures).toEqual({
      executed: 1,
      latest: [{ erasureId: erasure.id, collection: 'patients', executedAt: executed.executedAt, recordCount: 3, shreddedValues: sealedBefore }],
    });

    // The change feed tells downstream copies to erase: one erasures.execute entry, an items.delete per record.
    const feed = await site.admin('GET', '/cdc/events?limit=500');
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    const entries = feed.body.data as { type: string; collection: string | null; itemId: string | null; snapshot: Record<string, unknown> | null }[];
    const executions = entries.filter((entry) => entry.type === 'erasures.execute');
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ collection: 'patients', itemId: erasure.id, snapshot: { erasureId: erasure.id, recordCount: 3, subjectHash: erasure.subjectHash } });
    expect([...(executions[0]!.snapshot!.recordIds as string[])].sort()).toEqual([...erasedIds].sort());
    const deletes = entries.filter((entry) => entry.type === 'items.delete' && entry.collection === 'patients');
    for (const id of erasedIds) expect(deletes.map((entry) => entry.itemId)).toContain(id);
    // (The note, not erased, still carries the same address: only the patients' entries are the subject's.)
    const feedText = JSON.stringify(entries.filter((entry) => entry.collection === 'patients'));
    for (const value of [email, versionEmail, ...diagnoses]) expect(feedText).not.toContain(value);

    // Nothing of the erased values is anywhere in the database in plaintext, nor is the kept record's pii;
    // a plain value is found (the search itself works).
    await service.context.daemon.drain();
    expect(await plaintextHits(owner, [email, versionEmail, ...diagnoses])).toEqual([]);
    expect(await plaintextHits(owner, [keptEmail, keptDiagnosis])).toEqual([]);
    expect((await plaintextHits(owner, [keptName])).some((hit) => hit.startsWith('items.data:'))).toBe(true);
  });

  it('erases by a plain field the same way', async () => {
    const { site, second } = await erasureSite(service);
    const city = unique('city');
    const emails = [`${unique('plain')}@example.test`, `${unique('plain')}@example.test`];
    // Created in one request (one transaction, the bulk path): each value is sealed for its own record.
    const matching = (await ok(
      site.admin('POST', '/items/patients', [
        { name: 'A', city, email: emails[0] },
        { name: 'B', city, email: emails[1] },
      ]),
      201,
    )) as { id: string }[];
    expect(matching).toHaveLength(2);
    expect(await sealedCount(owner, site, matching.map((item) => item.id))).toBe(2);
    const keptEmail = `${unique('kept')}@example.test`;
    const other = await createItem(site, 'patients', { name: 'C', city: `${city}-not`, email: keptEmail });

    const erasure = await requestErasure(site, { collection: 'patients', filter: { city: { _eq: city } } });
    expect(erasure.matchedCount).toBe(2);
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    expect(await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`))).toMatchObject({ status: 'executed', recordCount: 2, shreddedValues: 2 });

    for (const item of matching) expectError(await site.admin('GET', `/items/patients/${item.id}`), 404, 'RECORD_NOT_FOUND');
    expect(await sealedCount(owner, site, matching.map((item) => item.id))).toBe(0);
    expect((await ok(site.admin('GET', `/items/patients/${other.id}`))).email).toBe(keptEmail);
    await service.context.daemon.drain();
    expect(await plaintextHits(owner, [...emails, keptEmail])).toEqual([]);
  });
});

describe('the receipt', () => {
  it('is signed with Ed25519 and verifies offline with the public key it carries', async () => {
    const { site, second } = await erasureSite(service);
    const email = `${unique('receipt')}@example.test`;
    await createItem(site, 'patients', { name: 'R', email, diagnosis: unique('diagnosis') });
    await createItem(site, 'patients', { name: 'R2', email });
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } }, reason: 'subject asked by mail' });
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    const executed = await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`));

    const response = await site.admin('GET', `/admin/erasure/${erasure.id}/receipt`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { receipt, payload, signature, keyId, algorithm, publicKey } = response.body.data;
    expect(algorithm).toBe('Ed25519');
    expect(typeof keyId).toBe('string');
    expect(receipt).toMatchObject({
      erasureId: erasure.id,
      siteId: site.siteId,
      collection: 'patients',
      subjectHash: erasure.subjectHash,
      recordCount: 2,
      shreddedValues: executed.shreddedValues,
      reason: 'subject asked by mail',
      requestedBy: site.adminUserId,
      confirmedBy: second.userId,
      executedBy: site.adminUserId,
      executedAt: executed.executedAt,
    });
    expect(JSON.parse(payload)).toEqual(receipt);
    expect(payload).not.toContain(email);

    const key = createPublicKey(publicKey.pem);
    expect(key.asymmetricKeyType).toBe('ed25519');
    expect(verify(null, Buffer.from(payload), key, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(verify(null, Buffer.from(payload), createPublicKey({ key: publicKey.jwk, format: 'jwk' }), Buffer.from(signature, 'base64url'))).toBe(true);
    const tampered = payload.replace('"recordCount":2', '"recordCount":1');
    expect(tampered).not.toBe(payload);
    expect(verify(null, Buffer.from(tampered), key, Buffer.from(signature, 'base64url'))).toBe(false);
    // Read again, it is the same receipt.
    expect((await ok(site.admin('GET', `/admin/erasure/${erasure.id}/receipt`))).payload).toBe(payload);
  });
});

describe('another site', () => {
  it('never reads, confirms or executes this site’s erasure, and keeps its own records with the same values', async () => {
    const a = await erasureSite(service, 'erase-a');
    const b = await erasureSite(service, 'erase-b');
    const email = `${unique('shared')}@example.test`;
    const diagnosis = unique('shared-diagnosis');
    const city = unique('shared-city');
    const inA = await createItem(a.site, 'patients', { name: 'In A', city, email, diagnosis });
    const inB = await createItem(b.site, 'patients', { name: 'In B', city, email, diagnosis });
    const sealedInB = await sealedCount(owner, b.site, [inB.id]);

    const byEmail = await requestErasure(a.site, { collection: 'patients', filter: { email: { _eq: email } } });
    const byCity = await requestErasure(a.site, { collection: 'patients', filter: { city: { _eq: city } } });
    expect(byEmail.matchedCount).toBe(1);
    expect(byCity.matchedCount).toBe(1);

    for (const admin of [b.site.adminToken, b.second.token]) {
      expectError(await b.site.as(admin, 'GET', `/admin/erasure/${byEmail.id}`), 404, 'NOT_FOUND');
      expectError(await b.site.as(admin, 'POST', `/admin/erasure/${byEmail.id}/confirm`), 404, 'NOT_FOUND');
      expectError(await b.site.as(admin, 'POST', `/admin/erasure/${byEmail.id}/execute`), 404, 'NOT_FOUND');
      expectError(await b.site.as(admin, 'GET', `/admin/erasure/${byEmail.id}/receipt`), 404, 'NOT_FOUND');
    }
    expect((await b.site.admin('GET', '/admin/erasure')).body.data).toEqual([]);
    // B's token sent with A's site header opens nothing either (a token belongs to its site).
    const foreignToken = await service.request('GET', `/admin/erasure/${byEmail.id}`, { site: a.site.siteId, token: b.site.adminToken });
    expectError(foreignToken, 401, 'UNAUTHENTICATED');
    expect((await ok(a.site.admin('GET', `/admin/erasure/${byEmail.id}`))).status).toBe('requested');

    await ok(a.site.as(a.second.token, 'POST', `/admin/erasure/${byEmail.id}/confirm`));
    expect(await ok(a.site.admin('POST', `/admin/erasure/${byEmail.id}/execute`))).toMatchObject({ recordCount: 1 });
    expectError(await a.site.admin('GET', `/items/patients/${inA.id}`), 404, 'RECORD_NOT_FOUND');
    // The request by city names a record that is gone by now: executing it erases nothing more.
    await ok(a.site.as(a.second.token, 'POST', `/admin/erasure/${byCity.id}/confirm`));
    expect(await ok(a.site.admin('POST', `/admin/erasure/${byCity.id}/execute`))).toMatchObject({ status: 'executed', recordCount: 0, shreddedValues: 0 });

    expect(await ok(b.site.admin('GET', `/items/patients/${inB.id}`))).toMatchObject({ name: 'In B', city, email, diagnosis });
    expect(await sealedCount(owner, b.site, [inB.id])).toBe(sealedInB);
    const bItems = await owner.query(sql`SELECT 1 FROM items WHERE site_id = ${b.site.siteId} AND id = ${inB.id}`);
    expect(bItems).toHaveLength(1);
    expect(await owner.query(sql`SELECT 1 FROM events WHERE site_id = ${b.site.siteId} AND type IN ('erasure_requested', 'erasure_confirmed', 'data_erased')`)).toEqual([]);
    await service.context.daemon.drain();
    const feedOfB = await b.site.admin('GET', '/cdc/events?limit=500');
    expect(feedOfB.body.data.filter((entry: { type: string }) => entry.type === 'erasures.execute' || entry.type === 'items.delete')).toEqual([]);
  });
});

