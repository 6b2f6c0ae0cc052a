// The number formats of the sites bench's lines (scripts/bench/sites.ts and its support files).

/** Two decimals. */
export function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Bytes in MiB, one decimal. */
export function mib(bytes: number): number {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}

/** A hit rate (0–1) as a percentage; n/a when the cache was not consulted. */
export function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? 'n/a' : `${Math.round(rate * 1000) / 10}%`;
}

export function thousands(value: number): string {
  return value.toLocaleString('en-US');
}
