// The service's one UUID check (domain/shared/uuid.ts) against PostgreSQL: what it accepts casts to
// uuid, and its pattern reads the same in SQL (`~`), where a query guards a cast with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { isUuid, UUID_PATTERN } from '../../domain/shared/uuid.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';

let database: Database;

beforeAll(() => {
  database = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 1 });
});
afterAll(async () => {
  await database.close();
});

const SAMPLES = [
  '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  '0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D',
  '00000000-0000-0000-0000-000000000001',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '0a1b2c3d4e5f4a6b8c7d9e0f1a2b3c4d',
  '{0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d}',
  '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4g',
  '0a1b2c3d-4e5f-4a6b-8c7d',
  'x',
];

describe('the UUID pattern in PostgreSQL', () => {
  it('accepts only text that casts to uuid, as the canonical lower-case form of itself', async () => {
    for (const value of SAMPLES.filter(isUuid)) {
      const [row] = await database.query<{ id: string }>(sql`SELECT ${value}::uuid::text AS id`);
      expect(row!.id).toBe(value.toLowerCase());
    }
  });

  it('matches in SQL exactly what isUuid matches', async () => {
    const rows = await database.query<{ value: string; matches: boolean }>(
      sql`SELECT value, value ~ ${UUID_PATTERN.source} AS matches FROM unnest(${SAMPLES}::text[]) AS value`,
    );
    expect(rows.map((row) => [row.value, row.matches])).toEqual(SAMPLES.map((value) => [value, isUuid(value)]));
  });
});
