// The content headers of item reads and writes (spec, common conventions): X-Svc-Locale, checked,
// and X-Svc-Draft. Search reads X-Svc-Locale too.
import type { FastifyRequest } from 'fastify';
import { canonicalLanguage } from '../../../domain/content/itemInput.ts';
import { AppError } from '../../../domain/shared/appError.ts';

export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** X-Svc-Locale, checked and in its canonical form (`pt-br` → `pt-BR`). */
export function localeOf(request: FastifyRequest): string | null {
  const value = header(request, 'x-svc-locale')?.trim();
  if (!value) return null;
  const locale = canonicalLanguage(value);
  if (locale === null) {
    throw new AppError('VALIDATION_FAILED', 'X-Svc-Locale must be a language code such as en or pt-BR', { path: ['headers', 'x-svc-locale'] });
  }
  return locale;
}

export function draftOf(request: FastifyRequest): boolean {
  const value = header(request, 'x-svc-draft')?.trim().toLowerCase();
  return value === 'true' || value === '1';
}
