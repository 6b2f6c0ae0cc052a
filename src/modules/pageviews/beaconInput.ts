// What the pageview beacon accepts: the path of its body, and the requests it does not count (bots
// by user agent, Do Not Track, Global Privacy Control). Every refusal is silent: the beacon answers
// 204 whatever it was sent (docs/delivery.md).
import type { IncomingHttpHeaders } from 'node:http';
import { unstorableTextReason } from '../../../domain/shared/storableText.ts';

/** Longest path counted, in characters and in UTF-8 bytes (it is part of a primary key). */
export const MAX_PATH_LENGTH = 2_000;

/**
 * Case-insensitive substrings of the user agents of bots, crawlers, monitors, command-line clients
 * and headless browsers. A request without a user agent is not counted either.
 */
export const BOT_USER_AGENT_MARKERS: readonly string[] = [
  'bot',
  'crawl',
  'spider',
  'slurp',
  'archiver',
  'curl',
  'wget',
  'httpie',
  'python-requests',
  'python-urllib',
  'aiohttp',
  'httpx',
  'go-http-client',
  'java/',
  'okhttp',
  'libwww',
  'axios',
  'node-fetch',
  'undici',
  'headless',
  'phantomjs',
  'selenium',
  'puppeteer',
  'playwright',
  'lighthouse',
  'pagespeed',
  'gtmetrix',
  'pingdom',
  'uptime',
  'monitor',
  'facebookexternalhit',
  'embedly',
  'preview',
];

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
}

export function isBotUserAgent(userAgent: string): boolean {
  const lower = userAgent.toLowerCase();
  return lower === '' || BOT_USER_AGENT_MARKERS.some((marker) => lower.includes(marker));
}

/** Why a request is not counted whatever its body: a bot, or the visitor asked not to be tracked. */
export function uncountedReason(headers: IncomingHttpHeaders): 'bot' | 'dnt' | 'gpc' | null {
  if (isBotUserAgent(header(headers, 'user-agent'))) return 'bot';
  if (header(headers, 'dnt') === '1') return 'dnt';
  if (header(headers, 'sec-gpc') === '1') return 'gpc';
  return null;
}

/**
 * The path a beacon body names, or null when it names none that can be counted. The body is
 * `{ "path": "/a/b" }`, parsed already (application/json) or as text (text/plain, what
 * navigator.sendBeacon sends for a string). The query string and fragment are dropped: they would
 * split a page's counts and may carry tokens.
 */
export function beaconPath(body: unknown): string | null {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return null;
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const sent = (parsed as { path?: unknown }).path;
  if (typeof sent !== 'string' || sent.length > MAX_PATH_LENGTH) return null;
  const path = sent.replace(/[?#].*$/s, '');
  if (!path.startsWith('/') || Buffer.byteLength(path) > MAX_PATH_LENGTH) return null;
  if (/[\u0000-\u001f\u007f]/.test(path) || unstorableTextReason(path) !== null) return null;
  return path;
}
