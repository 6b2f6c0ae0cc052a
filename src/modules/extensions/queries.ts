// Reads of a site's extensions: the list, one extension, its code (for a run), the Studio's UI manifest.
import type { UI_LOCATIONS } from '../../../domain/extensions/bundleFormat.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { ExtensionView, UiManifest } from './schemas.ts';

interface Row {
  id: string;
  name: string;
  version: string;
  description: string | null;
  entry: string;
  status: 'enabled' | 'disabled';
  official: boolean;
  key_id: string;
  sha256: string;
  requested: string[];
  granted: string[];
  ui: { panels: { id: string; title: string; location: (typeof UI_LOCATIONS)[number] }[] } | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = sql`id, name, version, description, entry, status, official, key_id, sha256, requested, granted, ui, created_at, updated_at`;

function viewOf(row: Row): ExtensionView {
  const panels = row.ui?.panels ?? [];
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    description: row.description,
    status: row.status,
    entry: row.entry,
    official: row.official,
    signerKeyId: row.key_id,
    sha256: row.sha256,
    capabilities: { requested: row.requested, granted: row.granted },
    ui: row.ui ? { panels: panels.length, locations: [...new Set(panels.map((panel) => panel.location))] } : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function listExtensions(tx: Queryable, siteId: string, page: { limit: number; page: number }): Promise<{ extensions: ExtensionView[]; total: number }> {
  const rows = await tx.query<Row>(sql`
    SELECT ${COLUMNS} FROM extensions WHERE site_id = ${siteId} ORDER BY created_at, id LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM extensions WHERE site_id = ${siteId}`);
  return { extensions: rows.map(viewOf), total: count?.total ?? 0 };
}

export async function findExtension(tx: Queryable, siteId: string, extensionId: string): Promise<ExtensionView | null> {
  const [row] = await tx.query<Row>(sql`SELECT ${COLUMNS} FROM extensions WHERE site_id = ${siteId} AND id = ${extensionId}`);
  return row ? viewOf(row) : null;
}

export async function findExtensionIdByName(tx: Queryable, siteId: string, name: string): Promise<string | null> {
  const [row] = await tx.query<{ id: string }>(sql`SELECT id FROM extensions WHERE site_id = ${siteId} AND name = ${name}`);
  return row?.id ?? null;
}

/** The code of an extension's current bundle. */
export async function findCode(tx: Queryable, siteId: string, extensionId: string): Promise<string | null> {
  const [row] = await tx.query<{ code: string }>(sql`SELECT code FROM extension_code WHERE site_id = ${siteId} AND extension_id = ${extensionId}`);
  return row?.code ?? null;
}

/** The enabled extensions' panels, oldest extension first: what the Studio shows. */
export async function readUiManifest(tx: Queryable, siteId: string): Promise<UiManifest> {
  const rows = await tx.query<Pick<Row, 'id' | 'name' | 'version' | 'ui'>>(sql`
    SELECT id, name, version, ui FROM extensions
     WHERE site_id = ${siteId} AND status = 'enabled' AND jsonb_array_length(coalesce(ui -> 'panels', '[]'::jsonb)) > 0
     ORDER BY created_at, id`);
  return {
    extensions: rows.map((row) => ({
      id: row.id,
      name: row.name,
      version: row.version,
      panels: (row.ui?.panels ?? []).map(({ id, title, location }) => ({ id, title, location })),
    })),
  };
}
