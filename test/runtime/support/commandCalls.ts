// What the command registry's tests share: a principal, the run options of a site, and an error as
// `commands.run` throws it and as a REST route answers it, in one comparable shape.
import { expect } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import type { Principal } from '../../../src/auth/principal.ts';
import type { CommandRunOptions } from '../../../src/runtime/commandRegistry.ts';

/** A person signed in with a session (an administrator when `admin`). */
export function person(userId: string, admin = false): Principal {
  return { kind: 'user', userId, roleId: null, admin, sessionId: null, via: 'session', realm: 'studio' };
}

export const callerOf = (site: { siteId: string }, principal: Principal): CommandRunOptions => ({ siteId: site.siteId, principal });

export interface Refusal {
  status: number;
  code: string;
  path: (string | number)[];
}

/** The error `promise` rejects with, as the envelope shows it. */
export async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  return { status: appError.status, code: appError.code, path: appError.path };
}

/** A REST answer's first error, in the same shape. */
export function restError(response: { status: number; body: { errors: { code: string; path: (string | number)[] }[] } }): Refusal {
  return { status: response.status, code: response.body.errors[0]!.code, path: response.body.errors[0]!.path };
}
