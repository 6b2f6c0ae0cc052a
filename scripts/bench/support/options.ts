// Command-line options shared by the benchmarks.

/** A command-line option that must be a positive integer. */
export function positiveInteger(text: string | undefined, name: string, usage: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer\n${usage}`);
  return value;
}
