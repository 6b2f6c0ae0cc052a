// How events and read models hold a pii/phi value: `svc:sealed:<value id>`, a reference to the
// sensitive value store (src/modules/encryption/sealedValues.ts), never the value (docs/privacy.md).
export const SEALED_PREFIX = 'svc:sealed:';
const SEALED_REFERENCE = /^svc:sealed:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function sealedReference(id: string): string {
  return `${SEALED_PREFIX}${id}`;
}

/** The value id of a reference, or null when `value` is not one. */
export function sealedIdOf(value: unknown): string | null {
  return typeof value === 'string' ? (SEALED_REFERENCE.exec(value)?.[1] ?? null) : null;
}

/**
 * What a reader without `read_decrypted` sees in place of a pii/phi value. Sent back in a write, it
 * means "unchanged": the stored value stays (as a hash field's mask does).
 */
export const MASKED = '[encrypted]';
