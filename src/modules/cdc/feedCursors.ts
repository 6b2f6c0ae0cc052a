// Change-feed cursors (docs/change-feed.md "Cursors"): opaque per site, so that a cursor tells
// nothing of other sites and opens on its own site only. A cursor seals the entry's sequence with
// the site's key (infra/crypto/siteTokens.ts): the same entry always has the same cursor, on every
// instance and after a restart, as long as SVC_SECRET stays the same.
import { tryDecodeCursor } from '../../../domain/changeFeed/cursor.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { createSiteTokens } from '../../../infra/crypto/siteTokens.ts';

/** One site's cursors; take one per request or batch (it keeps a cipher for the entries it encodes). */
export interface SiteFeedCursors {
  encode(sequence: number): string;
  /** The sequence a cursor of this site stands for; 400 VALIDATION_FAILED at `path` for anything else. */
  decode(cursor: string, path: (string | number)[]): number;
  /** 410 CURSOR_EXPIRED, naming the first cursor still retained. */
  expired(earliestSequence: number): AppError;
}

export interface FeedCursors {
  forSite(siteId: string): SiteFeedCursors;
}

export function createFeedCursors(deploymentSecret: string): FeedCursors {
  const tokens = createSiteTokens(deploymentSecret, 'cdc-cursor');
  return {
    forSite(siteId) {
      const sealed = tokens.numbers(siteId);
      return {
        encode: (sequence) => sealed.seal(sequence),
        decode(cursor, path) {
          // Cursors issued before they were opaque (base64url of "f1:<sequence>") are still read, for
          // one version: they only ever named a sequence of the site that reads them.
          const sequence = sealed.open(cursor) ?? tryDecodeCursor(cursor);
          if (sequence === null) throw new AppError('VALIDATION_FAILED', 'Malformed cursor; use a cursor this site\'s feed returned', { path });
          return sequence;
        },
        expired(earliestSequence) {
          return new AppError('CURSOR_EXPIRED', 'The cursor is past the change-feed retention; restart from earliestCursor', {
            extensions: { earliestCursor: sealed.seal(earliestSequence) },
          });
        },
      };
    },
  };
}
