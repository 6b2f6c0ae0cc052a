// The presets read model gives the same rows when rebuilt from the log: presets of every scope,
// changed, moved, deleted, and those a deleted collection and a deleted user took with them. On a
// database of the file's own: a rebuild rewrites the whole table, which other files must not see.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { presetsProjection } from '../../../projections/presetsProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createPreset, createPresetSite, createRole, member } from './support/presetHelpers.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

describe('presets read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = await createPresetSite(service, 'presetrb');
    await site.admin('POST', '/collections', { name: 'pages', fields: [{ field: 'title', type: 'string' }] });
    const parent = await createRole(site);
    const roleId = await createRole(site, parent);
    const someone = await member(site, roleId);
    const leaving = await member(site, roleId);
    const doomedRole = await createRole(site);

    await createPreset(site, { query: { fields: ['title'], sort: ['-views'], filter: { views: { _gt: 3 } }, limit: 10 }, options: { columns: { title: 200 } } });
    const ofRole = await createPreset(site, { roleId, bookmark: 'Popular', icon: 'star', color: '#123456' });
    await createPreset(site, { roleId: doomedRole });
    const own = await createPreset(site, { userId: someone.userId, layout: 'cards' }, someone.token);
    await createPreset(site, { userId: leaving.userId, bookmark: 'Mine' }, leaving.token);
    await createPreset(site, { collection: 'pages' });
    const gone = await createPreset(site, { bookmark: 'Gone' });
    expect((await site.admin('PATCH', `/presets/${ofRole.id}`, { layout: 'kanban', roleId: parent })).status).toBe(200);
    expect((await site.as(someone.token, 'PATCH', `/presets/${own.id}`, { options: { size: 'large' } })).status).toBe(200);
    expect((await site.admin('DELETE', `/presets/${gone.id}`)).status).toBe(204);
    expect((await site.admin('DELETE', '/collections/pages')).status).toBe(204);
    expect((await site.admin('DELETE', `/users/${leaving.userId}`)).status).toBe(204);
    expect((await site.admin('DELETE', `/roles/${doomedRole}`)).status).toBe(204);

    const snapshot = async () => ({
      presets: (await database.owner.query(sql`SELECT * FROM presets WHERE site_id = ${site.siteId} ORDER BY id`)).map((row) => JSON.stringify(row)),
    });
    expect((await snapshot()).presets).toHaveLength(3);
    await expectRebuildToGiveSameRows({ service, owner: database.owner, projections: [presetsProjection], tablesWithRows: ['presets'], snapshot });
  });
});
