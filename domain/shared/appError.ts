// The one error type of the service: a spec error code, an HTTP status, and where the problem is.
export interface AppErrorOptions {
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly path: (string | number)[];
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.path = options.path ?? [];
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

export const errors = {
  validation: (message: string, path: (string | number)[] = [], status = 400) =>
    new AppError('VALIDATION_FAILED', status, message, { path }),
  notFound: (message = 'Not found') => new AppError('NOT_FOUND', 404, message),
  recordNotFound: (message = 'Record not found') => new AppError('RECORD_NOT_FOUND', 404, message),
  conflict: (message: string, path: (string | number)[] = []) => new AppError('CONFLICT', 409, message, { path }),
  forbidden: (message = 'You do not have permission to do this') => new AppError('PERMISSION_DENIED', 403, message),
  unauthenticated: (message = 'Authentication required') => new AppError('UNAUTHENTICATED', 401, message),
  invalidCredentials: () => new AppError('INVALID_CREDENTIALS', 401, 'Invalid email or password'),
  tokenExpired: () => new AppError('TOKEN_EXPIRED', 401, 'The token has expired; refresh and retry'),
};
