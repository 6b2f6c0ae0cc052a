// The key ring and the sealing of values, without a database: SVC_ENCRYPTION_KEYS parsing and its
// refusals, AES-256-GCM seal/open with associated data, and the value store's binding of a value to
// its site, record and field (direct and envelope mode, rewrap).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DERIVED_KEY_ID, KeyRingFormatError, newDataKey, openBytes, OpenFailedError, parseKeyRing, sealBytes } from '../../../infra/crypto/keyRing.ts';
import { appErrorThrownBy } from '../../support/appErrors.ts';
import { DecryptionFailure, openSealed, resealRow, sealValue, type SealMode, type SealTarget, type StoredSealed } from '../../../src/modules/encryption/sealedValues.ts';

const SECRET = 'test-secret-that-is-long-enough-0123456789';
const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

function parseError(value: string): KeyRingFormatError {
  try {
    parseKeyRing(value, SECRET);
  } catch (error) {
    if (error instanceof KeyRingFormatError) return error;
    throw error;
  }
  throw new Error(`"${value}" was accepted`);
}

describe('parseKeyRing', () => {
  it('takes id:base64 pairs in their order, the first as the default', () => {
    const ring = parseKeyRing(` alpha:${keyA} , beta.2_x-y:${keyB} `, SECRET);
    expect(ring.ids).toEqual(['alpha', 'beta.2_x-y']);
    expect(ring.defaultId).toBe('alpha');
    expect(ring.has('alpha')).toBe(true);
    expect(ring.has('beta.2_x-y')).toBe(true);
    expect(ring.has('gamma')).toBe(false);
    expect(ring.key('alpha').equals(Buffer.from(keyA, 'base64'))).toBe(true);
    expect(ring.key('beta.2_x-y').equals(Buffer.from(keyB, 'base64'))).toBe(true);
    expect(() => ring.key('gamma')).toThrow(/not provisioned/);
  });

  it('derives one key from the secret when unset or blank, the same for the same secret', () => {
    for (const value of [undefined, '', '   ']) {
      const ring = parseKeyRing(value, SECRET);
      expect(ring.ids).toEqual([DERIVED_KEY_ID]);
      expect(ring.defaultId).toBe(DERIVED_KEY_ID);
      expect(ring.key(DERIVED_KEY_ID)).toHaveLength(32);
    }
    const one = parseKeyRing(undefined, SECRET).key(DERIVED_KEY_ID);
    expect(parseKeyRing(undefined, SECRET).key(DERIVED_KEY_ID).equals(one)).toBe(true);
    expect(parseKeyRing(undefined, `${SECRET}-other`).key(DERIVED_KEY_ID).equals(one)).toBe(false);
  });

  it('refuses an entry without an id, a bad id, a repeated id, or bytes that are not 32', () => {
    expect(parseError(keyA).message).toMatch(/not id:base64key/);
    expect(parseError(`:${keyA}`).message).toMatch(/not id:base64key/);
    expect(parseError(`bad id:${keyA}`).message).toMatch(/not id:base64key/);
    expect(parseError(`${'k'.repeat(65)}:${keyA}`).message).toMatch(/not id:base64key/);
    expect(parseError(`a/b:${keyA}`).message).toMatch(/not id:base64key/);
    expect(parseError(`a:${keyA},a:${keyB}`).message).toMatch(/given twice/);
    expect(parseError(`a:${randomBytes(16).toString('base64')}`).message).toMatch(/16 bytes, not 32/);
    expect(parseError(`a:${randomBytes(33).toString('base64')}`).message).toMatch(/33 bytes, not 32/);
    expect(parseError('a:').message).toMatch(/0 bytes, not 32/);
    expect(parseError(`a:${keyA},b:not-base64-at-all!`).message).toMatch(/key "b"/);
  });

  it('accepts an id of 64 characters', () => {
    const id = 'k'.repeat(64);
    expect(parseKeyRing(`${id}:${keyA}`, SECRET).ids).toEqual([id]);
  });
});

describe('sealBytes / openBytes', () => {
  const key = randomBytes(32);
  const data = Buffer.from('site\u001fpatients\u001fid\u001femail');

  it('opens what it sealed, with a fresh IV each time', () => {
    const plaintext = Buffer.from('"pat@example.test"');
    const one = sealBytes(key, plaintext, data);
    const two = sealBytes(key, plaintext, data);
    expect(one.equals(two)).toBe(false);
    expect(one.subarray(0, 12).equals(two.subarray(0, 12))).toBe(false);
    // 12-byte IV, 16-byte tag, then as many bytes as the plaintext.
    expect(one).toHaveLength(12 + 16 + plaintext.length);
    expect(one.includes(plaintext)).toBe(false);
    expect(openBytes(key, one, data).equals(plaintext)).toBe(true);
    expect(openBytes(key, two, data).equals(plaintext)).toBe(true);
    expect(openBytes(key, sealBytes(key, Buffer.alloc(0), data), data)).toHaveLength(0);
  });

  it('refuses another key, other associated data, any flipped byte, and a value too short', () => {
    const sealed = sealBytes(key, Buffer.from('secret'), data);
    expect(() => openBytes(randomBytes(32), sealed, data)).toThrow(OpenFailedError);
    expect(() => openBytes(key, sealed, Buffer.from('site\u001fpatients\u001fother\u001femail'))).toThrow(OpenFailedError);
    expect(() => openBytes(key, sealed, Buffer.alloc(0))).toThrow(OpenFailedError);
    for (const index of [0, 11, 12, 27, 28, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[index] = tampered[index]! ^ 0x01;
      expect(() => openBytes(key, tampered, data), `byte ${index}`).toThrow(OpenFailedError);
    }
    expect(() => openBytes(key, sealed.subarray(0, sealed.length - 1), data)).toThrow(OpenFailedError);
    expect(() => openBytes(key, sealed.subarray(0, 27), data)).toThrow(/too short/);
    expect(() => openBytes(key, Buffer.alloc(0), data)).toThrow(OpenFailedError);
  });

  it('makes 32-byte data keys, each different', () => {
    const one = newDataKey();
    expect(one).toHaveLength(32);
    expect(one.equals(newDataKey())).toBe(false);
  });
});

describe('sealed values', () => {
  const ring = parseKeyRing(`a:${keyA},b:${keyB}`, SECRET);
  const site = 'site-1';
  const target: SealTarget = { collection: 'patients', itemId: 'item-1', field: 'email' };
  const direct: SealMode = { keyId: 'a', envelope: false };
  const envelope: SealMode = { keyId: 'a', envelope: true };

  const stored = (row: ReturnType<typeof sealValue>): StoredSealed => ({ ...row });

  it('seals a value of any JSON type in direct mode and opens it at its own record and field', () => {
    for (const value of ['pat@example.test', 42, 3.5, true, { street: 'Main' }, ['a', 'b']]) {
      const row = sealValue(ring, site, direct, target, value);
      expect(row).toMatchObject({ ...target, keyId: 'a', dataKey: null });
      expect(row.sealed.includes(Buffer.from(JSON.stringify(value)))).toBe(false);
      expect(openSealed(ring, site, stored(row), target)).toEqual(value);
    }
  });

  it('seals with a data key of its own in envelope mode, wrapped by the ring key', () => {
    const row = sealValue(ring, site, envelope, target, 'pat@example.test');
    expect(row.keyId).toBe('a');
    expect(row.dataKey).not.toBeNull();
    expect(row.dataKey!.length).toBe(12 + 16 + 32);
    expect(openSealed(ring, site, stored(row), target)).toBe('pat@example.test');
    // The value is not sealed with the ring key itself.
    expect(() => openBytes(ring.key('a'), row.sealed, Buffer.from('x'))).toThrow(OpenFailedError);
  });

  it('refuses a value read at another record or field, or moved there, or of another site', () => {
    for (const mode of [direct, envelope]) {
      const row = stored(sealValue(ring, site, mode, target, 'pat@example.test'));
      for (const elsewhere of [{ ...target, itemId: 'item-2' }, { ...target, field: 'phone' }, { ...target, collection: 'others' }]) {
        expect(() => openSealed(ring, site, row, elsewhere)).toThrow(DecryptionFailure);
        // The row itself relabelled to the other record: its associated data no longer matches.
        expect(() => openSealed(ring, site, { ...row, ...elsewhere }, elsewhere)).toThrow(DecryptionFailure);
      }
      expect(() => openSealed(ring, 'site-2', row, target)).toThrow(DecryptionFailure);
      // A row whose id was changed does not open either.
      expect(() => openSealed(ring, site, { ...row, id: '018f0000-0000-7000-8000-000000000000' }, target)).toThrow(DecryptionFailure);
    }
  });

  it('refuses tampered bytes, another key id, and a key the ring does not hold, as DecryptionFailure with the target', () => {
    const row = stored(sealValue(ring, site, direct, target, 'pat@example.test'));
    const tampered = Buffer.from(row.sealed);
    tampered[tampered.length - 1] = tampered[tampered.length - 1]! ^ 0xff;
    const failure = (() => {
      try {
        openSealed(ring, site, { ...row, sealed: tampered }, target);
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(failure).toBeInstanceOf(DecryptionFailure);
    expect(failure).toMatchObject({ target, valueId: row.id, keyId: 'a' });
    expect(() => openSealed(ring, site, { ...row, keyId: 'b' }, target)).toThrow(DecryptionFailure);
    expect(() => openSealed(ring, site, { ...row, keyId: 'gone' }, target)).toThrow(DecryptionFailure);

    const enveloped = stored(sealValue(ring, site, envelope, target, 'pat@example.test'));
    const wrapped = Buffer.from(enveloped.dataKey!);
    wrapped[20] = wrapped[20]! ^ 0x01;
    expect(() => openSealed(ring, site, { ...enveloped, dataKey: wrapped }, target)).toThrow(DecryptionFailure);
    expect(() => openSealed(ring, site, { ...enveloped, keyId: 'b' }, target)).toThrow(DecryptionFailure);
  });

  it('reseals onto another key and between modes, keeping the value and its binding', () => {
    const row = stored(sealValue(ring, site, direct, target, { name: 'Pat' }));
    const onB = { ...row, ...resealRow(ring, site, row, { keyId: 'b', envelope: false }) };
    expect(onB).toMatchObject({ keyId: 'b', dataKey: null });
    expect(openSealed(ring, site, onB, target)).toEqual({ name: 'Pat' });
    expect(() => openSealed(ring, site, { ...onB, keyId: 'a' }, target)).toThrow(DecryptionFailure);

    const enveloped = { ...onB, ...resealRow(ring, site, onB, { keyId: 'b', envelope: true }) };
    expect(enveloped.dataKey).not.toBeNull();
    expect(openSealed(ring, site, enveloped, target)).toEqual({ name: 'Pat' });

    // In envelope mode a rewrap wraps the data key anew and leaves the sealed value as it is.
    const rewrapped = { ...enveloped, ...resealRow(ring, site, enveloped, { keyId: 'a', envelope: true }) };
    expect(rewrapped.keyId).toBe('a');
    expect(rewrapped.sealed.equals(enveloped.sealed)).toBe(true);
    expect(rewrapped.dataKey!.equals(enveloped.dataKey!)).toBe(false);
    expect(openSealed(ring, site, rewrapped, target)).toEqual({ name: 'Pat' });

    const backToDirect = { ...rewrapped, ...resealRow(ring, site, rewrapped, { keyId: 'a', envelope: false }) };
    expect(backToDirect.dataKey).toBeNull();
    expect(openSealed(ring, site, backToDirect, target)).toEqual({ name: 'Pat' });
  });

  it('refuses to reseal a value that does not open, or onto a key the ring does not hold', () => {
    const row = stored(sealValue(ring, site, direct, target, 'x'));
    const tampered = Buffer.from(row.sealed);
    tampered[0] = tampered[0]! ^ 0x01;
    expect(() => resealRow(ring, site, { ...row, sealed: tampered }, { keyId: 'b', envelope: false })).toThrow(DecryptionFailure);
    expect(appErrorThrownBy(() => resealRow(ring, site, row, { keyId: 'gone', envelope: false })).code).toBe('KEY_NOT_PROVISIONED');
    expect(appErrorThrownBy(() => sealValue(ring, site, { keyId: 'gone', envelope: false }, target, 'x')).code).toBe('KEY_NOT_PROVISIONED');
  });
});
