// The opaque change-feed cursor: base64url of "f1:<sequence>". Clients must not build it; the
// prefix lets the format change later without misreading old cursors.
import { AppError } from '../shared/appError.ts';

const PREFIX = 'f1:';

export function encodeCursor(sequence: number): string {
  return Buffer.from(`${PREFIX}${sequence}`, 'utf8').toString('base64url');
}

/** The sequence a cursor stands for; null when it is not a cursor this service issued. */
export function tryDecodeCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(PREFIX)) return null;
  const digits = decoded.slice(PREFIX.length);
  if (!/^(0|[1-9]\d{0,15})$/.test(digits)) return null;
  const sequence = Number(digits);
  return Number.isSafeInteger(sequence) ? sequence : null;
}

export function decodeCursor(cursor: string, path: (string | number)[]): number {
  const sequence = tryDecodeCursor(cursor);
  if (sequence === null) throw new AppError('VALIDATION_FAILED', 'Malformed cursor; use a nextCursor the feed returned', { path });
  return sequence;
}

export function cursorExpired(earliestSequence: number): AppError {
  return new AppError('CURSOR_EXPIRED', 'The cursor is past the change-feed retention; restart from earliestCursor', {
    extensions: { earliestCursor: encodeCursor(earliestSequence) },
  });
}
