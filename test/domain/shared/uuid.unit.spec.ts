import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { isUuid, uuidSchema, UUID_PATTERN } from '../../../domain/shared/uuid.ts';
import { deterministicUuid } from '../../../src/auth/deterministicId.ts';

const UUIDS = [
  randomUUID(),
  uuidv7(),
  deterministicUuid('site/role/subscriber'),
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D',
  // No version or RFC variant: PostgreSQL's uuid type reads it all the same.
  '00000000-0000-0000-0000-000000000001',
  '12345678-90ab-cdef-0123-456789abcdef',
];

const NOT_UUIDS = [
  '',
  'not-a-uuid',
  '0a1b2c3d-4e5f-4a6b-8c7d',
  '0a1b2c3d4e5f4a6b8c7d9e0f1a2b3c4d',
  '{0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d}',
  '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4g',
  '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\n',
  ' 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d0',
];

describe('isUuid', () => {
  it.each(UUIDS)('accepts %s', (value) => expect(isUuid(value)).toBe(true));
  it.each(NOT_UUIDS)('refuses %j', (value) => expect(isUuid(value)).toBe(false));
  it('refuses what is not text', () => {
    for (const value of [null, undefined, 42, {}, [randomUUID()]]) expect(isUuid(value)).toBe(false);
  });
});

describe('uuidSchema', () => {
  it('accepts exactly what isUuid accepts, refusing the rest as an invalid UUID', () => {
    for (const value of UUIDS) expect(uuidSchema.safeParse(value).success).toBe(true);
    for (const value of NOT_UUIDS) expect(uuidSchema.safeParse(value).error?.issues[0]?.message).toBe('Invalid UUID');
  });

  it('is one pattern, with no flag, that PostgreSQL can use as it is', () => {
    expect(UUID_PATTERN.flags).toBe('');
  });
});
