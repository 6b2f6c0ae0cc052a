// SVC_EXTENSION_TRUSTED_KEYS: raw and DER public keys, the official mark, and refusals that name the entry.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseTrustedKeys } from '../../../infra/extensions/trustedKeys.ts';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';

const ed25519 = () => generateKeyPairSync('ed25519').publicKey;
const raw = (key = ed25519()) => Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
const der = (key = ed25519()) => key.export({ format: 'der', type: 'spki' }).toString('base64');

describe('the trusted extension keys', () => {
  it('reads raw and DER keys, base64 or base64url, with an official mark', () => {
    const key = ed25519();
    const keys = parseTrustedKeys(` a:${raw(key)} , b.2:${der()}:official,c:${Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url').toString('base64url')}`);
    expect(keys.map(({ keyId, official }) => ({ keyId, official }))).toEqual([
      { keyId: 'a', official: false },
      { keyId: 'b.2', official: true },
      { keyId: 'c', official: false },
    ]);
    expect(keys[0]!.publicKey.equals(key)).toBe(true);
    expect(keys[2]!.publicKey.equals(key)).toBe(true);
    expect(parseTrustedKeys(undefined)).toEqual([]);
    expect(parseTrustedKeys('  ')).toEqual([]);
  });

  it('refuses what is not a list of Ed25519 keys, naming the entry', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(() => parseTrustedKeys(`a:${raw()},a:${raw()}`)).toThrow('"a" is listed twice');
    expect(() => parseTrustedKeys(`a:${rsa}`)).toThrow('not an Ed25519 key');
    expect(() => parseTrustedKeys('a:AAAA')).toThrow('neither a raw 32-byte Ed25519 public key nor a DER');
    expect(() => parseTrustedKeys('a:not base64!')).toThrow('not base64');
    expect(() => parseTrustedKeys(`bad id:${raw()}`)).toThrow('is not a key id');
    expect(() => parseTrustedKeys(`a:${raw()}:trusted`)).toThrow('keyId:publicKey:official');
  });

  it('stops the start on a bad value, naming the variable', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', SVC_SECRET: 'x'.repeat(40), SVC_EXTENSION_TRUSTED_KEYS: 'a:AAAA' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'test', SVC_SECRET: 'x'.repeat(40), SVC_EXTENSION_TRUSTED_KEYS: 'a:AAAA' })).toThrow(/SVC_EXTENSION_TRUSTED_KEYS/);
  });
});
