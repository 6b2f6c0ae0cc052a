// The one error type of the service: a spec error code, its HTTP status (from the catalogue), and
// where the problem is.
import { errorCatalogue, UNPROCESSABLE_STATUS, type ErrorCode } from './errorCatalogue.ts';

export type { ErrorCode } from './errorCatalogue.ts';

export interface AppErrorOptions {
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
  /** VALIDATION_FAILED only: answer 422, as the spec asks on its release, issuer and some other routes. */
  unprocessable?: boolean;
}

export class AppError extends Error {
  readonly status: number;
  readonly path: (string | number)[];
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = options.unprocessable && code === 'VALIDATION_FAILED' ? UNPROCESSABLE_STATUS : errorCatalogue[code].status;
    this.path = options.path ?? [];
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  /** The same error (code, status, extensions) at another path. */
  at(path: (string | number)[]): AppError {
    return new AppError(this.code, this.message, {
      path,
      extensions: this.extensions,
      headers: this.headers,
      cause: this.cause,
      unprocessable: this.status === UNPROCESSABLE_STATUS,
    });
  }
}

export const errors = {
  validation: (message: string, path: (string | number)[] = []) => new AppError('VALIDATION_FAILED', message, { path }),
  notFound: (message = 'Not found') => new AppError('NOT_FOUND', message),
  recordNotFound: (message = 'Record not found') => new AppError('RECORD_NOT_FOUND', message),
  conflict: (message: string, path: (string | number)[] = []) => new AppError('CONFLICT', message, { path }),
  forbidden: (message = 'You do not have permission to do this') => new AppError('PERMISSION_DENIED', message),
  unauthenticated: (message = 'Authentication required') => new AppError('UNAUTHENTICATED', message),
  invalidCredentials: () => new AppError('INVALID_CREDENTIALS', 'Invalid email or password'),
  tokenExpired: () => new AppError('TOKEN_EXPIRED', 'The token has expired; refresh and retry'),
};
