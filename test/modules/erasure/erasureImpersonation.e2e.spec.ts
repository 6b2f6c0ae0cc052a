// Dual control cannot be passed alone through impersonation (finding 4 of the security review):
// administrator A impersonating administrator B neither confirms A's own request as B, nor requests
// as B an erasure that A then confirms as themselves.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem } from '../access/support.ts';
import { erasureSite, expectError, ok, requestErasure, unique } from './support.ts';

const service = await startTestServiceForFile();

async function impersonate(site: Awaited<ReturnType<typeof erasureSite>>['site'], userId: string): Promise<string> {
  const response = await site.admin('POST', `/users/${userId}/impersonate`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.token as string;
}

describe('erasure dual control and impersonation', () => {
  it('refuses a confirmation from an impersonated session, and the erasure stays unexecuted', async () => {
    const { site, second } = await erasureSite(service);
    const email = `${unique('imp')}@example.test`;
    const patient = await createItem(site, 'patients', { name: 'Imp', email });
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });

    const asSecond = await impersonate(site, second.userId);
    expectError(await site.as(asSecond, 'POST', `/admin/erasure/${erasure.id}/confirm`), 403, 'PERMISSION_DENIED');
    expectError(await site.admin('POST', `/admin/erasure/${erasure.id}/execute`), 409, 'CONFLICT');
    expect((await ok(site.admin('GET', `/admin/erasure/${erasure.id}`))).status).toBe('requested');
    expect((await ok(site.admin('GET', `/items/patients/${patient.id}`))).email).toBe(email);

    // The real second administrator still confirms.
    expect((await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`))).confirmedBy).toBe(second.userId);
  });

  it('refuses a request from an impersonated session (the requester would not be who confirms it)', async () => {
    const { site, second } = await erasureSite(service);
    const email = `${unique('imp')}@example.test`;
    await createItem(site, 'patients', { name: 'Imp', email });
    const asSecond = await impersonate(site, second.userId);
    const response = await site.as(asSecond, 'POST', '/admin/erasure', { collection: 'patients', filter: { email: { _eq: email } }, reason: 'Art. 17 request' });
    expectError(response, 403, 'PERMISSION_DENIED');
    expect(await ok(site.admin('GET', '/admin/erasure'))).toEqual([]);
  });
});
