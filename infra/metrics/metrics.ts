// The service's metrics in the Prometheus text format (prom-client), one registry per running
// context. The parts count in plain fields of their own (a cache's hits, a queue's failed runs: an
// increment is a field update, and no part imports prom-client); those figures, and the ones that
// live in PostgreSQL or a queue (projection lag, the log's head, queue depth), are read at scrape
// time by samplers, each bounded in time, so a scrape never waits on a dependency that hangs.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** A value of a sampled gauge, with its labels. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** What an in-process cache counts of its lookups. */
export interface CacheStats {
  hits: number;
  misses: number;
}

export function cacheStats(): CacheStats {
  return { hits: 0, misses: 0 };
}

export type Sampler = () => Promise<Sample[]> | Sample[];

export interface Metrics {
  readonly registry: Registry;
  /** HTTP request durations in seconds, by method, route pattern (never the raw URL) and status. */
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  /**
   * Adds a reader to the metric `name` (created on first use, a gauge unless `kind` says counter: a
   * total that only grows, such as the log's head): at each scrape the metric is cleared and every
   * reader's samples are set. A reader that fails or takes longer than SAMPLE_TIMEOUT_MS adds nothing.
   */
  sample(name: string, help: string, labelNames: readonly string[], read: Sampler, kind?: 'gauge' | 'counter'): () => void;
  /** Reports an in-process cache's lookups as svc_cache_lookups_total{cache, result}. */
  cache(name: string, stats: CacheStats): () => void;
  /** The text Prometheus scrapes. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** How long one sampler may take within a scrape. */
export const SAMPLE_TIMEOUT_MS = 2_000;

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request durations by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const sampled = new Map<string, Set<Sampler>>();
  const metrics: Metrics = {
    registry,
    httpRequestDuration,
    contentType: registry.contentType,
    cache(name, stats) {
      return metrics.sample(
        'svc_cache_lookups_total',
        'Lookups of in-process caches by cache and result (hit, miss); the hit rate is hit / (hit + miss)',
        ['cache', 'result'],
        () => [
          { labels: { cache: name, result: 'hit' }, value: stats.hits },
          { labels: { cache: name, result: 'miss' }, value: stats.misses },
        ],
        'counter',
      );
    },
    sample(name, help, labelNames, read, kind = 'gauge') {
      let readers = sampled.get(name);
      if (!readers) {
        const all = (readers = new Set());
        sampled.set(name, all);
        const samples = async () => (await Promise.all([...all].map((reader) => bounded(reader)))).flat();
        const shape = { name, help, labelNames, registers: [registry] };
        if (kind === 'gauge') {
          new Gauge({
            ...shape,
            async collect() {
              this.reset();
              for (const sample of await samples()) this.set(sample.labels, sample.value);
            },
          });
        } else {
          new Counter({
            ...shape,
            async collect() {
              this.reset();
              for (const sample of await samples()) this.inc(sample.labels, sample.value);
            },
          });
        }
      }
      readers.add(read);
      return () => readers.delete(read);
    },
    render: () => registry.metrics(),
  };
  return metrics;
}

async function bounded(read: Sampler): Promise<Sample[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Sample[]>((resolve) => {
    timer = setTimeout(() => resolve([]), SAMPLE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(read).catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
