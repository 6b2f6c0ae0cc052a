// Versioned event schemas: an upcaster lifts `type` from `fromVersion` to `fromVersion + 1`.
// Stored events are never rewritten; they are upcast each time they are read.
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

const upcasters = new Map<string, Upcaster>();

export function registerUpcaster(type: string, fromVersion: number, upcast: Upcaster): void {
  upcasters.set(`${type}@${fromVersion}`, upcast);
}

export function upcast(type: string, version: number, data: Record<string, unknown>): { version: number; data: Record<string, unknown> } {
  let current = data;
  let currentVersion = version;
  for (let step = upcasters.get(`${type}@${currentVersion}`); step; step = upcasters.get(`${type}@${currentVersion}`)) {
    current = step(current);
    currentVersion += 1;
  }
  return { version: currentVersion, data: current };
}
