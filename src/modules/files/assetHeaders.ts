// The headers every answer carrying stored bytes gets (issue #27): images the guard decoded or scanned
// may be shown inline under a CSP that runs nothing; anything else is a download under a sandbox, and
// nothing is ever sniffed. Shared caches may keep an answer only while the public role may read media.
import { servedInline } from './uploadGuard.ts';

/** Raster images inline: nothing runs, nothing loads from elsewhere. */
export const IMAGE_POLICY = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'";
/** SVG inline: stricter than the image policy (no image loads, and a sandbox) although the guard already refused active content. */
export const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
/** Everything else, always an attachment: opened anyway (a misconfigured proxy, a browser bug), it runs in an opaque origin with nothing allowed. */
export const ATTACHMENT_POLICY = "sandbox; default-src 'none'";

const ORIGINAL_MAX_AGE = 'max-age=300';
const DERIVATIVE_MAX_AGE = 'max-age=31536000, immutable';

/** RFC 6266: an ASCII fallback name, and the name itself in RFC 5987 form. */
function contentDisposition(disposition: 'attachment' | 'inline', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return fallback === filename ? `${disposition}; filename="${filename}"` : `${disposition}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** The CSP of stored bytes of `type`, wherever they are served. */
export function contentSecurityPolicy(type: string): string {
  if (!servedInline(type)) return ATTACHMENT_POLICY;
  return type === 'image/svg+xml' ? SVG_POLICY : IMAGE_POLICY;
}

/**
 * An original's headers. `inline` is what the route would like (`/assets` shows images, `/media`
 * downloads); only the types the guard verified as images are ever inline.
 */
export function originalHeaders(file: { type: string; filename: string }, wanted: 'attachment' | 'inline', publiclyReadable: boolean): Record<string, string> {
  const disposition = wanted === 'inline' && servedInline(file.type) ? 'inline' : 'attachment';
  return {
    'content-type': file.type,
    'x-content-type-options': 'nosniff',
    'content-disposition': contentDisposition(disposition, file.filename),
    'content-security-policy': contentSecurityPolicy(file.type),
    'cache-control': `${publiclyReadable ? 'public' : 'private'}, ${ORIGINAL_MAX_AGE}`,
  };
}

/** A derivative's headers: always a raster image the transformer wrote; never changes under its address. */
export function derivativeHeaders(contentType: string, etag: string, publiclyReadable: boolean): Record<string, string> {
  return {
    'content-type': contentType,
    'x-content-type-options': 'nosniff',
    'content-security-policy': IMAGE_POLICY,
    'cache-control': `${publiclyReadable ? 'public' : 'private'}, ${DERIVATIVE_MAX_AGE}`,
    etag,
  };
}
