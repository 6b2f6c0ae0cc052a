// The prepared statements of one connection: which texts it has prepared, under which names, kept
// while they are used. PostgreSQL then skips parsing, rewriting (row-level security included) and,
// where it chooses a generic plan, planning: for a read by id that is most of the server's work.
import { createHash } from 'node:crypto';

/** The server-side name of a prepared statement: the same text gets the same name on every connection. */
export function statementName(text: string): string {
  return `svc_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

/**
 * - `new`: never sent on this connection (or closed since).
 * - `preparing`: parsed by the pipeline in flight.
 * - `known`: prepared by a pipeline that completed.
 * - `uncertain`: used by a pipeline that failed; it may or may not exist, so it is closed first.
 */
type EntryState = 'new' | 'preparing' | 'known' | 'uncertain';

interface Entry {
  name: string;
  state: EntryState;
}

/** What a pipeline must send for one statement. */
export interface StatementPlan {
  name: string;
  /** Close the name first (a statement that may exist from a failed pipeline). */
  close: boolean;
  parse: boolean;
}

/**
 * One connection's prepared statements, least recently used first. Past `capacity` the oldest are
 * closed, so statements built from requests (one text per query shape) cannot pile up on the server.
 */
export class StatementCache {
  private readonly entries = new Map<string, Entry>();
  /** The entries the pipeline in flight uses. */
  private readonly inPipeline = new Set<Entry>();

  constructor(private readonly capacity: number) {}

  /**
   * Plans the named statements of one pipeline, in order. `evicted` are to be closed before anything
   * else is sent: a Close cannot fail, and sent first it runs even if the pipeline fails later.
   */
  plan(texts: string[]): { statements: StatementPlan[]; evicted: string[] } {
    const statements = texts.map((text) => {
      let entry = this.entries.get(text);
      if (entry) this.entries.delete(text);
      else entry = { name: statementName(text), state: 'new' };
      // Re-inserted: the most recently used come last.
      this.entries.set(text, entry);
      this.inPipeline.add(entry);
      if (entry.state === 'known' || entry.state === 'preparing') return { name: entry.name, close: false, parse: false };
      const close = entry.state === 'uncertain';
      entry.state = 'preparing';
      return { name: entry.name, close, parse: true };
    });
    const evicted: string[] = [];
    if (this.entries.size <= this.capacity) return { statements, evicted };
    const inUse = new Set(texts);
    for (const [text, entry] of this.entries) {
      if (this.entries.size <= this.capacity) break;
      if (inUse.has(text)) continue;
      this.entries.delete(text);
      evicted.push(entry.name);
    }
    return { statements, evicted };
  }

  /** The pipeline completed: what it parsed exists. */
  completed(): void {
    for (const entry of this.inPipeline) entry.state = 'known';
    this.inPipeline.clear();
  }

  /**
   * The pipeline failed: what it parsed may or may not exist, and what it used is prepared again
   * next time, in case the failure was the statement's own (a plan whose result type a migration
   * changed: "cached plan must not change result type").
   */
  failed(): void {
    for (const entry of this.inPipeline) entry.state = 'uncertain';
    this.inPipeline.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
