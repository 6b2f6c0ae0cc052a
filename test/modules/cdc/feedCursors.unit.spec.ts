// The change-feed cursor codec (src/modules/cdc/feedCursors.ts): opaque, stable, per site.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import { createFeedCursors } from '../../../src/modules/cdc/feedCursors.ts';

const SECRET = 'a-deployment-secret-of-at-least-32-characters';
const cursors = createFeedCursors(SECRET);
const PATH = ['query', 'cursor'];

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('not refused');
}

describe('feed cursors', () => {
  it('round-trip, are the same for the same sequence and secret, and have one length', () => {
    const site = cursors.forSite('acme');
    for (const sequence of [0, 1, 42, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      const cursor = site.encode(sequence);
      expect(cursor).toMatch(/^c[A-Za-z0-9_-]{22}$/);
      expect(site.decode(cursor, PATH)).toBe(sequence);
      expect(createFeedCursors(SECRET).forSite('acme').encode(sequence)).toBe(cursor);
    }
  });

  it('refuse another site\'s cursor, another secret\'s, and any changed character', () => {
    const cursor = cursors.forSite('acme').encode(7);
    expect(refusal(() => cursors.forSite('other').decode(cursor, PATH))).toMatchObject({ code: 'VALIDATION_FAILED', path: PATH });
    expect(refusal(() => createFeedCursors(`${SECRET}!`).forSite('acme').decode(cursor, PATH)).code).toBe('VALIDATION_FAILED');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let index = 1; index < cursor.length; index += 1) {
      const other = alphabet[(alphabet.indexOf(cursor[index]!) + 1) % alphabet.length]!;
      const changed = `${cursor.slice(0, index)}${other}${cursor.slice(index + 1)}`;
      expect(refusal(() => cursors.forSite('acme').decode(changed, ['body', 'cursor']))).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'cursor'] });
    }
  });

  it('still read a cursor of before (base64url of "f1:<sequence>") for one version', () => {
    expect(cursors.forSite('acme').decode(Buffer.from('f1:42').toString('base64url'), PATH)).toBe(42);
  });

  it('name an opaque earliestCursor when expired', () => {
    const site = cursors.forSite('acme');
    const expired = site.expired(9);
    expect(expired.code).toBe('CURSOR_EXPIRED');
    expect(expired.extensions).toEqual({ earliestCursor: site.encode(9) });
  });
});
