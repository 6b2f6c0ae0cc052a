// Unique values under concurrent writers (src/runtime/uniqueness.ts): of many requests claiming one
// team name, policy name, user email or issuer at once, one wins and every other gets the area's 409,
// never a 500 from the unique index.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';

const service = await startTestServiceForFile();
const ATTEMPTS = 8;

async function race(siteId: string, token: string, path: string, body: (attempt: number) => unknown): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: ATTEMPTS }, (_, attempt) => service.request('POST', path, { site: siteId, token, body: body(attempt) })));
  return answers.map((answer) => answer.status).sort();
}

describe('a unique value claimed by concurrent writers', () => {
  it('gives one 201 and 409 to the rest, for team and policy names (case-insensitively) and user emails', async () => {
    const site = await createTestSite(service);
    const others = Array.from({ length: ATTEMPTS - 1 }, () => 409);
    expect(await race(site.siteId, site.adminToken, '/teams', (attempt) => ({ name: attempt % 2 ? 'Editors' : 'editors' }))).toEqual([201, ...others]);
    expect(await race(site.siteId, site.adminToken, '/policies', (attempt) => ({ name: attempt % 2 ? 'Readers' : 'READERS' }))).toEqual([201, ...others]);
    expect(await race(site.siteId, site.adminToken, '/users', () => ({ email: 'same@example.test', password: 'correct horse battery' }))).toEqual([201, ...others]);
  });
});
