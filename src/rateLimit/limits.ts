// The rate-limit scopes of the spec's Limits table and how a route asks for one:
// `config: { rateLimit: 'auth' | 'itemsRead' | 'itemsWrite' | 'fileUpload' | 'aiChat' }`, or a custom
// rule `{ name, limit, per }` for a limit a module configures itself (delivery, pageviews).
import type { Config } from '../config/config.ts';

export type RateLimitScope = 'auth' | 'itemsRead' | 'itemsWrite' | 'fileUpload' | 'aiChat';

export interface CustomRateLimit {
  /** Counter name, unique per rule. */
  name: string;
  /** Requests per window; 0 disables. */
  limit: number;
  /** Whom the counter belongs to: the client IP, or the signed-in principal (anonymous callers by IP). */
  per: 'ip' | 'user';
}

export type RateLimitRule = RateLimitScope | CustomRateLimit;

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimit?: RateLimitRule;
  }
}

/** The limit of each scope (requests per SVC_RATE_LIMIT_WINDOW_SECONDS) and whom it counts. */
export function scopeLimits(config: Config): Record<RateLimitScope, CustomRateLimit> {
  return {
    auth: { name: 'auth', limit: config.SVC_RATE_LIMIT_AUTH, per: 'ip' },
    itemsRead: { name: 'itemsRead', limit: config.SVC_RATE_LIMIT_ITEMS_READ, per: 'user' },
    itemsWrite: { name: 'itemsWrite', limit: config.SVC_RATE_LIMIT_ITEMS_WRITE, per: 'user' },
    fileUpload: { name: 'fileUpload', limit: config.SVC_RATE_LIMIT_FILE_UPLOAD, per: 'user' },
    aiChat: { name: 'aiChat', limit: config.SVC_RATE_LIMIT_AI_CHAT, per: 'user' },
  };
}
