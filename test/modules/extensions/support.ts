// Signing keys and bundles for the extensions tests, and the multipart upload as a client sends it.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { expect } from 'vitest';
import type { TestResponse, TestService, TestSite } from '../../support/testService.ts';

export interface SigningKey {
  keyId: string;
  privateKey: KeyObject;
  /** base64 of the raw 32-byte public key. */
  rawPublicKey: string;
  /** base64 of the DER SubjectPublicKeyInfo. */
  spkiPublicKey: string;
}

export function makeSigningKey(keyId: string): SigningKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return { keyId, privateKey, rawPublicKey: Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64'), spkiPublicKey: spki.toString('base64') };
}

/** A community key (raw form), an official one (DER form) and one the service does not trust. */
export const communityKey = makeSigningKey('community-1');
export const officialKey = makeSigningKey('svc-official');
export const strangerKey = makeSigningKey('stranger');
export const TRUSTED_KEYS = `${communityKey.keyId}:${communityKey.rawPublicKey}, ${officialKey.keyId}:${officialKey.spkiPublicKey}:official`;

export interface BundleOptions {
  name?: string;
  version?: string;
  capabilities?: string[];
  ui?: unknown;
  entry?: string;
  code?: string;
  description?: string;
}

/** A bundle's bytes: `{ manifest, code }` as JSON. */
export function bundleBytes(options: BundleOptions = {}): Buffer {
  const manifest = {
    name: options.name ?? 'word-count',
    version: options.version ?? '1.0.0',
    description: options.description ?? 'Counts words',
    capabilities: options.capabilities ?? ['log', 'items:read:articles'],
    ...(options.ui === undefined ? {} : { ui: options.ui }),
    entry: options.entry ?? 'run',
  };
  return Buffer.from(JSON.stringify({ manifest, code: options.code ?? 'module.exports.run = (input) => ({ echo: input });' }, null, 2), 'utf8');
}

export function signatureOf(bytes: Buffer, key: SigningKey): string {
  return sign(null, bytes, key.privateKey).toString('base64');
}

export interface UploadForm {
  bytes?: Buffer;
  signature?: string;
  keyId?: string;
}

/** POST /extensions/upload as multipart/form-data: the `bundle` file part and the `signature` and `keyId` fields. */
export async function uploadForm(service: TestService, site: TestSite, form: UploadForm, token: string = site.adminToken): Promise<TestResponse> {
  const body = new FormData();
  if (form.signature !== undefined) body.append('signature', form.signature);
  if (form.keyId !== undefined) body.append('keyId', form.keyId);
  if (form.bytes) body.append('bundle', new Blob([new Uint8Array(form.bytes)], { type: 'application/json' }), 'bundle.json');
  const response = await fetch(`${service.url}/api/v1/extensions/upload`, { method: 'POST', headers: { 'x-svc-site': site.siteId, authorization: `Bearer ${token}` }, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** Uploads a bundle signed by `key` (the community key by default) and expects it installed or upgraded. */
export async function upload(service: TestService, site: TestSite, options: BundleOptions = {}, key: SigningKey = communityKey): Promise<{ id: string } & Record<string, any>> {
  const bytes = bundleBytes(options);
  const response = await uploadForm(service, site, { bytes, signature: signatureOf(bytes, key), keyId: key.keyId });
  expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
  return response.body.data;
}

/** Signs a user of the site in who is no administrator. */
export async function memberToken(service: TestService, site: TestSite): Promise<string> {
  const email = `member@${site.siteId}.test`;
  const password = 'correct horse battery staple';
  const created = await service.request('POST', '/users', { site: site.siteId, token: site.adminToken, body: { email, password } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email, password } });
  expect(login.status).toBe(200);
  return login.body.data.token;
}
