// Seed helpers of the Studio's files tests: real image bytes (sharp), a file uploaded through the API,
// and a member with a role that holds no media capability.
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { TestService, TestSite } from './testService.ts';

export const pngBytes = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .png()
    .toBuffer();

/** Uploads an image through the API's multipart form (as the administrator); answers the file record. */
export async function seedImage(service: TestService, site: TestSite, filename: string, width: number, height: number, fields: { folder?: string; tags?: string[] } = {}) {
  const form = new FormData();
  if (fields.folder) form.append('folder', fields.folder);
  for (const tag of fields.tags ?? []) form.append('tags', tag);
  form.append('file', new Blob([new Uint8Array(await pngBytes(width, height))], { type: 'image/png' }), filename);
  const response = await fetch(`${service.url}/api/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${site.adminToken}`, 'x-svc-site': site.siteId }, body: form });
  const body = (await response.json()) as { data: { id: string; key: string } };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.data;
}

/** A user of the site with a fresh role that grants nothing (no media:* capability). */
export async function memberWithoutMedia(service: TestService, site: TestSite) {
  const role = await service.request('POST', '/roles', { site: site.siteId, token: site.adminToken, body: { name: `editors-${randomUUID().slice(0, 6)}` } });
  expect(role.status, JSON.stringify(role.body)).toBe(201);
  const email = `editor-${randomUUID().slice(0, 8)}@${site.siteId}.test`;
  const password = 'editor password 123';
  const user = await service.request('POST', '/users', { site: site.siteId, token: site.adminToken, body: { email, password, roleId: role.body.data.id, firstName: 'Ed', lastName: 'Itor' } });
  expect(user.status, JSON.stringify(user.body)).toBe(201);
  return { siteId: site.siteId, email, password };
}
