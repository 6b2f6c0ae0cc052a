// What an extension may ask the service for, and whether a call is covered by what was granted
// (docs/extensions.md, "The capability API"). The host checks every call here; the sandbox's own
// API object is a convenience, never the check.
/** `log`, or `items:read:<collection>`: the capabilities this service implements. */
export const CAPABILITY_PATTERN = /^(?:log|items:read:[A-Za-z0-9_-]{1,64})$/;

/** A call an extension makes through its API, as the host receives it. */
export type CapabilityCall = { method: 'items.list' | 'items.read'; collection: string } | { method: 'log' };

/** The capability a call needs. */
export function requiredCapability(call: CapabilityCall): string {
  return call.method === 'log' ? 'log' : `items:read:${call.collection}`;
}

/** Whether the granted set covers the call. */
export function mayCall(granted: readonly string[], call: CapabilityCall): boolean {
  return granted.includes(requiredCapability(call));
}
