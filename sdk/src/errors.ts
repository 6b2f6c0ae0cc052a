// The service's error envelope as one error type: every answer that is not a success becomes a
// SvcError with the spec's code, the path in the request it applies to, and the HTTP status.

/** One error of the envelope `{ errors: [{ code, message, path, extensions }] }`. */
export interface SvcErrorEntry {
  code: string;
  message: string;
  path: (string | number)[];
  extensions: Record<string, unknown>;
}

export class SvcError extends Error {
  /** The first error's code (`VALIDATION_ERROR`, `PRECONDITION_FAILED`…), or `HTTP_<status>` for an answer without an envelope. */
  readonly code: string;
  /** Where in the request the first error applies (`['body', 'title']`); empty for the whole request. */
  readonly path: (string | number)[];
  readonly status: number;
  readonly extensions: Record<string, unknown>;
  /** Every error of the envelope (a bulk write may carry one per item). */
  readonly errors: SvcErrorEntry[];
  /** The request's id (`X-Request-Id`, sent by the client): the service logs it with every line of the request. */
  readonly requestId: string;

  constructor(status: number, errors: SvcErrorEntry[], requestId: string) {
    const first = errors[0] ?? { code: `HTTP_${status}`, message: `The service answered ${status}`, path: [], extensions: {} };
    super(first.message);
    this.name = 'SvcError';
    this.code = first.code;
    this.path = first.path;
    this.status = status;
    this.extensions = first.extensions;
    this.errors = errors.length > 0 ? errors : [first];
    this.requestId = requestId;
  }
}

function isEntry(value: unknown): value is SvcErrorEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.code === 'string' && typeof entry.message === 'string';
}

/** The SvcError of an answer that is not a success (its body read once, here). */
export async function errorOf(response: Response, requestId: string): Promise<SvcError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON (a proxy's page): the status speaks alone
  }
  const listed = typeof body === 'object' && body !== null ? (body as { errors?: unknown }).errors : undefined;
  const errors = Array.isArray(listed)
    ? listed.filter(isEntry).map((entry) => ({ code: entry.code, message: entry.message, path: Array.isArray(entry.path) ? entry.path : [], extensions: entry.extensions ?? {} }))
    : [];
  return new SvcError(response.status, errors, requestId);
}
