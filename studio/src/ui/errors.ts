// The service's error envelope, for forms: the message at the field its `path` names, the rest above.
import { SvcError } from '@svc-cms/sdk';

export interface FormErrors {
  /** Messages by field name (the entry's path after `body`). */
  fields: Record<string, string>;
  /** Messages that belong to no field. */
  general: string[];
}

export function formErrors(error: unknown): FormErrors {
  if (!(error instanceof SvcError)) return { fields: {}, general: error ? [error instanceof Error ? error.message : String(error)] : [] };
  const fields: Record<string, string> = {};
  const general: string[] = [];
  for (const entry of error.errors) {
    const path = (entry.path ?? []).map(String);
    const field = path[0] === 'body' ? path[1] : undefined;
    if (field !== undefined && fields[field] === undefined) fields[field] = entry.message;
    else if (field === undefined) general.push(`${entry.message}${entry.code ? ` (${entry.code})` : ''}`);
  }
  return { fields, general };
}

/** One line for an error anywhere: its message and code. */
export function errorText(error: unknown): string {
  if (error instanceof SvcError) return `${error.errors[0]?.message ?? error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
