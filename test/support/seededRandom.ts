// A small seeded random source for tests that sample (the fuzz tests): the same seed gives the same
// cases, so a failure reproduces from the seed it prints.

/** mulberry32: a 32-bit state, good enough to sample test cases (not for anything secret). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit hash of a text (FNV-1a), to derive one seed per operation from the run's seed. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, bound). */
  below(bound: number): number;
  pick<T>(values: readonly T[]): T;
  /** Up to `count` distinct values, in a random order. */
  sample<T>(values: readonly T[], count: number): T[];
  /** A version 4 UUID made of the stream's numbers. */
  uuid(): string;
}

export function seededRandom(seed: number): SeededRandom {
  const next = mulberry32(seed);
  const below = (bound: number) => Math.floor(next() * bound);
  return {
    next,
    below,
    pick: (values) => values[below(values.length)]!,
    sample(values, count) {
      const pool = [...values];
      for (let index = pool.length - 1; index > 0; index -= 1) {
        const other = below(index + 1);
        [pool[index], pool[other]] = [pool[other]!, pool[index]!];
      }
      return pool.slice(0, count);
    },
    uuid() {
      const hex = Array.from({ length: 32 }, () => below(16).toString(16));
      hex[12] = '4';
      hex[16] = '89ab'[below(4)]!;
      const text = hex.join('');
      return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
    },
  };
}
