// Each read-model table has one writer, its projection; the few maintenance writers beside it are
// declared with their reason (projections/readModelOwners.ts). This reads the source: a statement
// that writes a read-model table from anywhere else fails here until it is declared or moved.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projections } from '../../projections/index.ts';
import type { Projection } from '../../projections/projection.ts';
import { tableOwners } from '../../projections/readModelOwners.ts';

const root = join(import.meta.dirname, '../..');

function filesUnder(folder: string, extension: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

const owners = tableOwners();
const tables = owners.map((owner) => owner.table);

function writes(text: string, table: string): boolean {
  return new RegExp(String.raw`\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(\s+TABLE)?)\s+${table}\b`, 'i').test(text);
}

/** SQL functions (migrations and infra/postgres/functions) that write read-model tables, called by name from TypeScript; trigger functions are not called. */
function writingFunctions(): Map<string, string[]> {
  const functions = new Map<string, string[]>();
  // Migrations in order, then infra/postgres/functions, which every migrate re-applies: the last definition wins.
  for (const file of [...filesUnder('infra/postgres/migrations', '.sql').sort(), ...filesUnder('infra/postgres/functions', '.sql')]) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(/CREATE OR REPLACE FUNCTION (\w+)\([^)]*\)\s+RETURNS (\w+)[\s\S]*?\$\$([\s\S]*?)\$\$/g)) {
      const [, name, returns, body] = match;
      if (returns === 'trigger') continue;
      const written = tables.filter((table) => writes(body!, table));
      if (written.length > 0) functions.set(name!, written);
      else functions.delete(name!);
    }
  }
  return functions;
}

/** Which projections each file of projections/ defines. */
async function projectionsByFile(): Promise<Map<string, string[]>> {
  const byFile = new Map<string, string[]>();
  for (const file of filesUnder('projections', '.ts')) {
    const module = (await import(join(root, file))) as Record<string, unknown>;
    const defined = Object.values(module).filter((value): value is Projection => projections.includes(value as Projection));
    byFile.set(file, defined.map((projection) => projection.name));
  }
  return byFile;
}

/** The file of a writer ("src/x.ts (function)" → "src/x.ts"). */
const fileOf = (writer: string) => writer.split(' ')[0]!;

describe('read-model tables', () => {
  it('each have one owner', () => {
    expect(new Set(tables).size).toBe(tables.length);
    for (const projection of projections) for (const table of projection.tables) expect(owners.find((owner) => owner.table === table)?.owner).toEqual({ projection: projection.name });
  });

  it('are every table the migrations create, none without an owner', () => {
    const created = new Set<string>();
    for (const file of filesUnder('infra/postgres/migrations', '.sql').sort()) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const match of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/gi)) created.add(match[1]!);
      for (const match of text.matchAll(/DROP TABLE (?:IF EXISTS )?(\w+)/gi)) created.delete(match[1]!);
    }
    expect([...created].filter((table) => !tables.includes(table)).sort()).toEqual([]);
    for (const { owner } of owners) if ('store' in owner) expect(owner.why.length).toBeGreaterThan(20);
  });

  it('are written only by their owner and their declared maintainers', async () => {
    const defined = await projectionsByFile();
    const functions = writingFunctions();
    const undeclared: string[] = [];
    for (const file of ['src', 'scripts', 'infra', 'projections'].flatMap((folder) => filesUnder(folder, '.ts'))) {
      const text = readFileSync(join(root, file), 'utf8');
      const written = new Set(tables.filter((table) => writes(text, table)));
      for (const [name, its] of functions) if (new RegExp(String.raw`\b${name}\(`).test(text)) for (const table of its) written.add(table);
      for (const table of written) {
        const ownership = owners.find((owner) => owner.table === table)!;
        const owner = ownership.owner;
        const isOwner =
          'projection' in owner ? (defined.get(file) ?? []).includes(owner.projection) && !ownership.through : 'reactor' in owner ? owner.reactor === file : owner.store === file;
        const isMaintainer = ownership.maintainers.some((maintainer) => fileOf(maintainer.writer) === file);
        if (!isOwner && !isMaintainer) undeclared.push(`${file} writes ${table}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('declare only maintainers that exist and write the table, each with a reason', () => {
    const functions = writingFunctions();
    for (const { table, maintainers } of owners) {
      for (const maintainer of maintainers) {
        const text = readFileSync(join(root, fileOf(maintainer.writer)), 'utf8');
        const viaFunction = [...functions].some(([name, its]) => its.includes(table) && text.includes(`${name}(`));
        expect(writes(text, table) || viaFunction, `${maintainer.writer} writes ${table}`).toBe(true);
        expect(maintainer.why.length).toBeGreaterThan(20);
      }
    }
  });
});
