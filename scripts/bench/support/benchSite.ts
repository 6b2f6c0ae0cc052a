// The benchmark site: created through the instance API (unless reused) and logged into as its administrator.
import { BENCH_INSTANCE_TOKEN } from './benchService.ts';

export async function prepareSite(base: string, siteId: string, reuse: boolean): Promise<{ token: string; userId: string }> {
  const email = `admin@${siteId}.bench`;
  const password = 'bench password 0123456789';
  if (!reuse) {
    const created = await fetch(`${base}/instance/sites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_INSTANCE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: siteId, adminEmail: email, adminPassword: password }),
    });
    if (created.status !== 201) throw new Error(`site creation failed: ${created.status} ${await created.text()}`);
  }
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'x-svc-site': siteId, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!login.ok) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const body = (await login.json()) as { data: { token: string; user: { id: string } } };
  return { token: body.data.token, userId: body.data.user.id };
}
