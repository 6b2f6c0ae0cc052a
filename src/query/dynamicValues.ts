// Filter values that stand for something known only at request time: $NOW (with an offset),
// $CURRENT_USER and $CURRENT_ROLE.
import { AppError } from '../../domain/shared/appError.ts';
import type { Principal } from '../auth/principal.ts';
import type { ErrorPath } from './types.ts';

export interface DynamicValueContext {
  now: Date;
  userId?: string | null;
  roleId?: string | null;
}

/** What $CURRENT_USER, $CURRENT_ROLE and $NOW stand for in a request of `principal`. */
export function dynamicValuesOf(principal: Principal, now = new Date()): DynamicValueContext {
  return principal.kind === 'user' ? { now, userId: principal.userId, roleId: principal.roleId } : { now, userId: null, roleId: null };
}

export interface ResolvedValue {
  value: unknown;
  /** True when the value came from a variable; a variable that resolves to null matches nothing. */
  fromVariable: boolean;
}

const NOW_PATTERN = /^\$NOW(?:\(\s*([+-]?)\s*(\d{1,6})\s*(second|minute|hour|day|week|month|year)s?\s*\))?$/i;

export function resolveDynamicValue(value: unknown, context: DynamicValueContext, path: ErrorPath): ResolvedValue {
  if (typeof value !== 'string' || !value.startsWith('$')) return { value, fromVariable: false };
  if (value === '$CURRENT_USER') return { value: context.userId ?? null, fromVariable: true };
  if (value === '$CURRENT_ROLE') return { value: context.roleId ?? null, fromVariable: true };
  if (!/^\$NOW\b/i.test(value)) return { value, fromVariable: false };
  const match = NOW_PATTERN.exec(value);
  if (!match) {
    throw new AppError('VALIDATION_FAILED', `Cannot read "${value}"; use $NOW or $NOW(-7 days)`, { path });
  }
  const [, sign, amount, unit] = match;
  if (amount === undefined || unit === undefined) return { value: context.now.toISOString(), fromVariable: true };
  const signed = Number(amount) * (sign === '-' ? -1 : 1);
  return { value: shiftDate(context.now, signed, unit.toLowerCase()).toISOString(), fromVariable: true };
}

const MILLISECONDS: Record<string, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

function shiftDate(now: Date, amount: number, unit: string): Date {
  const perUnit = MILLISECONDS[unit];
  if (perUnit !== undefined) return new Date(now.getTime() + amount * perUnit);
  const months = unit === 'year' ? amount * 12 : amount;
  // Calendar months, clamped to the last day like PostgreSQL intervals: Jan 31 + 1 month = Feb 28/29.
  const monthIndex = now.getUTCFullYear() * 12 + now.getUTCMonth() + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const shifted = new Date(now.getTime());
  shifted.setUTCFullYear(year, month, Math.min(now.getUTCDate(), lastDay));
  return shifted;
}
