// The email bench's seed (scripts/bench/email.ts, step 1), through the command registry as the routes
// run it: the suppression list, the site users with their consents and restrictions, and the
// recipients of the marketing send, whose expected skipped counts follow from the seed.
import type { Principal } from '../../../src/auth/principal.ts';
import type { CommandRegistry, CommandRunOptions } from '../../../src/runtime/commandRegistry.ts';

export const SITE = 'emailbench';
const PROGRESS_MS = 5_000;
export const DOMAIN = 'example.test';
/** Local-part prefixes of the addresses a marketing send must skip: the sink counts any that arrives. */
export const SKIPPED_PREFIXES = ['suppressed-', 'user-noconsent-', 'user-restricted-'];

// The number formats of the bench's lines.
export const thousands = (value: number) => value.toLocaleString('en');
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Runs `work(0 … count-1)`, `concurrency` at a time, printing the progress every few seconds; answers the milliseconds it took. */
async function seedInParallel(label: string, count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  let done = 0;
  const progress = setInterval(() => {
    const elapsed = performance.now() - started;
    console.log(`  ${label}: ${thousands(done)} / ${thousands(count)} (${thousands(Math.round(done / (elapsed / 1000)))}/s)`);
  }, PROGRESS_MS);
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count) }, async () => {
        while (next < count) {
          await work(next++);
          done += 1;
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  return performance.now() - started;
}

function personPrincipal(userId: string, admin: boolean, roleId: string | null): Principal {
  return { kind: 'user', userId, roleId, admin, sessionId: null, via: 'session', realm: 'studio' };
}

/** The site's administrator, as the seed's commands run: signed in as themselves. */
export interface Administrator {
  userId: string;
  principal: Principal;
}

export function administrator(userId: string, roleId: string | null): Administrator {
  return { userId, principal: personPrincipal(userId, true, roleId) };
}

const suppressedAddress = (index: number) => `suppressed-${index}@${DOMAIN}`;

/** `email.suppress` as POST /email/suppressions runs it, as the site's administrator. */
export async function seedSuppressions(commands: CommandRegistry, admin: Administrator, count: number, concurrency: number): Promise<number> {
  return seedInParallel('suppressions', count, concurrency, async (index) => {
    await commands.run('email.suppress', { email: suppressedAddress(index), reason: 'bench: imported from the previous provider' }, {
      siteId: SITE,
      principal: admin.principal,
      metadata: { actor: { kind: 'user', id: admin.userId }, requestId: `bench-suppress-${index}` },
    });
  });
}

type UserKind = 'consented' | 'neverConsented' | 'withdrawn' | 'restricted';

/** 60 % consented, 10 % never asked, 10 % withdrawn, 20 % consented but restricted; in a fixed order. */
function userKindOf(index: number): UserKind {
  const slot = index % 10;
  if (slot < 6) return 'consented';
  if (slot === 6) return 'neverConsented';
  if (slot === 7) return 'withdrawn';
  return 'restricted';
}

function userAddress(index: number): string {
  const kind = userKindOf(index);
  const prefix = kind === 'consented' ? 'user-consented' : kind === 'restricted' ? 'user-restricted' : 'user-noconsent';
  return `${prefix}-${index}@${DOMAIN}`;
}

const USER_PASSWORD = 'bench reader password 0123456789';
const CONSENT = { type: 'marketing', source: 'bench: newsletter sign-up form', version: '2024-01' };

/** A user created by the administrator (`users.create`), then their own consent and restriction, as the person signed in. */
async function seedUser(commands: CommandRegistry, admin: Administrator, index: number): Promise<void> {
  const kind = userKindOf(index);
  const user = await commands.run<{ id: string }>(
    'users.create',
    { email: userAddress(index), password: USER_PASSWORD, firstName: `Reader ${index}` },
    { siteId: SITE, principal: admin.principal },
  );
  const self: CommandRunOptions = { siteId: SITE, principal: personPrincipal(user.id, false, null) };
  if (kind !== 'neverConsented') await commands.run('privacy.setConsent', { ...CONSENT, granted: true }, self);
  if (kind === 'withdrawn') await commands.run('privacy.setConsent', { ...CONSENT, granted: false }, self);
  if (kind === 'restricted') await commands.run('privacy.setRestriction', { restricted: true, reason: 'bench: objected to processing' }, self);
}

/** `count` users (`seedUser`), at most `concurrency` at a time; answers the milliseconds it took. */
export async function seedUsers(commands: CommandRegistry, admin: Administrator, count: number, concurrency: number): Promise<number> {
  // A few at a time: each users.create hashes a password (argon2id) on the 2 cores.
  return seedInParallel('users', count, Math.min(concurrency, 4), (index) => seedUser(commands, admin, index));
}

// ---- the recipients of the send ----

export interface RecipientPlan {
  addresses: string[];
  /** Site users to seed (all of them among the addresses). */
  users: number;
  expectedSkipped: { suppressed: number; noConsent: number; restricted: number };
  expectedSent: number;
}

/** A fixed shuffle (a linear congruential generator): the same list every run, the kinds interleaved. */
function shuffled<T>(values: T[]): T[] {
  const result = [...values];
  let state = 20_240_101;
  for (let index = result.length - 1; index > 0; index -= 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = state % (index + 1);
    [result[index], result[other]] = [result[other]!, result[index]!];
  }
  return result;
}

/** 10 % suppressed addresses, every seeded user, the rest unknown; one in ten written in upper case (the send normalizes). */
export function planRecipients(recipients: number, suppressions: number, wantedUsers: number): RecipientPlan {
  const suppressed = Math.min(suppressions, Math.floor(recipients / 10));
  const users = Math.min(wantedUsers, recipients - suppressed);
  const unknown = recipients - suppressed - users;
  const kinds = Array.from({ length: users }, (_, index) => userKindOf(index));
  const addresses = shuffled([
    ...Array.from({ length: suppressed }, (_, index) => suppressedAddress(index)),
    ...Array.from({ length: users }, (_, index) => userAddress(index)),
    ...Array.from({ length: unknown }, (_, index) => `recipient-${index}@${DOMAIN}`),
  ]).map((address, index) => (index % 10 === 0 ? address.toUpperCase() : address));
  const expectedSkipped = {
    suppressed,
    noConsent: kinds.filter((kind) => kind === 'neverConsented' || kind === 'withdrawn').length,
    restricted: kinds.filter((kind) => kind === 'restricted').length,
  };
  return { addresses, users, expectedSkipped, expectedSent: recipients - expectedSkipped.suppressed - expectedSkipped.noConsent - expectedSkipped.restricted };
}
