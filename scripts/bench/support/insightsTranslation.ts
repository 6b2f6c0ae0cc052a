// The translation memory part of `npm run bench -- insights` (docs/translation.md "Figures"): seeds a
// scratch database (DATABASE_URL's server) with N entries of one site and language pair in bulk SQL
// (plus a tenth as many of another pair and of other sites, which a lookup must skip), then times
// lookups of near-miss queries (a seeded sentence with one word changed, dropped or misspelt) as
// POST /tm/lookup runs them: one site transaction each, under row-level security, at threshold 75.
// Reports p50/p99 (target p99 < 20 ms), the hit rate and the plan of one lookup.
//   npm run bench -- insights --part tm [--entries 100000] [--lookups 1000] [--keep]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase, type Database } from '../../../infra/postgres/database.ts';
import { migrate } from '../../../infra/postgres/migrate.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { fuzzyLookupQuery, lookupEntry, setIndexThreshold } from '../../../src/modules/translation/lookup.ts';
import { normalizeText } from '../../../src/modules/translation/normalize.ts';
import { positiveInteger } from './options.ts';
import { createScratchDatabase, scratchServerUrl } from './scratchDatabase.ts';
import { percentile } from './percentile.ts';

const SITE = 'bench-tm';
const TARGET_P99_MS = 20;
const BATCH = 5_000;
const usage = 'usage: npm run bench -- insights --part tm [--entries 100000] [--lookups 1000] [--keep]';

/** A deterministic generator (mulberry32): the same run seeds the same texts. */
function randomOf(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Words with English spelling and frequencies: those of the documentation installed under
 * node_modules (its Markdown files), each as often as it occurs there. Trigram statistics decide a
 * lookup's cost, so the texts are made of real words, not made-up ones that share a few syllables.
 */
function documentationWords(): { words: string[]; cumulative: number[] } {
  const counts = new Map<string, number>();
  const visit = (directory: string, depth: number) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory() && depth < 4) visit(path, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.md')) {
        for (const word of readFileSync(path, 'utf8').toLowerCase().match(/\b[a-z]{2,14}\b/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
      }
    }
  };
  visit(join(process.cwd(), 'node_modules'), 0);
  const sorted = [...counts].filter(([, count]) => count >= 3).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (sorted.length < 1_000) throw new Error('too few documentation words under node_modules to make texts of (run npm ci first)');
  let total = 0;
  return { words: sorted.map(([word]) => word), cumulative: sorted.map(([, count]) => (total += count)) };
}

/** A sentence of 5–14 words, each drawn with its frequency in the documentation (Zipf-like, as text is). */
function sentenceMaker(random: () => number): () => string[] {
  const { words, cumulative } = documentationWords();
  const total = cumulative.at(-1)!;
  const draw = () => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! > target) high = middle;
      else low = middle + 1;
    }
    return words[low]!;
  };
  return () => Array.from({ length: 5 + Math.floor(random() * 10) }, draw);
}

/** One edit of a sentence: a word replaced, dropped, or two letters swapped. */
function nearMiss(words: string[], random: () => number, makeWords: () => string[]): string {
  const changed = [...words];
  const at = Math.floor(random() * changed.length);
  const kind = random();
  if (kind < 0.4) changed[at] = makeWords()[0]!;
  else if (kind < 0.7 && changed.length > 5) changed.splice(at, 1);
  else {
    const word = changed[at]!;
    const i = Math.floor(random() * Math.max(1, word.length - 1));
    changed[at] = word.length > 1 ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2) : word;
  }
  return changed.join(' ');
}

async function seed(owner: Database, site: string, sourceLang: string, targetLang: string, sentences: string[][]): Promise<void> {
  for (let start = 0; start < sentences.length; start += BATCH) {
    const texts = sentences.slice(start, start + BATCH).map((words) => words.join(' '));
    const sources = texts.map((text, index) => (index % 3 === 0 ? text[0]!.toUpperCase() + text.slice(1) + '.' : text));
    await owner.query(sql`
      INSERT INTO tm_entries (site_id, id, source_lang, target_lang, source_text, normalized_source, target_text, quality, context, source, entry_source, created_at, updated_at)
      SELECT ${site}, gen_random_uuid(), ${sourceLang}, ${targetLang}, s.source, s.normalized, '[' || ${targetLang} || '] ' || s.source, 50 + (s.n % 51), NULL, NULL,
             'import', now() - s.n * interval '1 second', now() - s.n * interval '1 second'
        FROM unnest(${sources}::text[], ${sources.map(normalizeText)}::text[]) WITH ORDINALITY AS s(source, normalized, n)
      ON CONFLICT DO NOTHING`);
  }
}


export async function runTranslationMemory(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: { entries: { type: 'string', default: '100000' }, lookups: { type: 'string', default: '1000' }, keep: { type: 'boolean', default: false } },
  });
  const entries = positiveInteger(values.entries as string, 'entries', usage);
  const lookups = positiveInteger(values.lookups as string, 'lookups', usage);
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_tm_${Date.now().toString(36)}`);
  let owner: Database | null = null;
  let database: Database | null = null;
  try {
    await migrate(scratch.url);
    // The owner seeds (a maintainer of tm_entries, projections/translationMemoryProjection.ts); lookups run as the service does.
    owner = createDatabase({ connectionString: scratch.url, poolSize: 2, asApplicationRole: false });
    database = createDatabase({ connectionString: scratch.url, poolSize: 2 });
    const random = randomOf(42);
    const makeWords = sentenceMaker(random);
    const seedStarted = Date.now();
    const sentences = Array.from({ length: entries }, makeWords);
    await seed(owner, SITE, 'en', 'de', sentences);
    const others = Math.max(1, Math.floor(entries / 10));
    await seed(owner, SITE, 'en', 'fr', Array.from({ length: others }, makeWords));
    for (let site = 0; site < 5; site += 1) await seed(owner, `bench-tm-other-${site}`, 'en', 'de', Array.from({ length: Math.ceil(others / 5) }, makeWords));
    await owner.query(sql`VACUUM ANALYZE tm_entries`);
    const [{ count } = { count: 0 }] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM tm_entries WHERE site_id = ${SITE} AND target_lang = 'de'`);
    console.log(`tm: seeded ${count} entries (en→de) of ${SITE}, ${others} of another pair and ${others} of other sites in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const queries = Array.from({ length: lookups + 50 }, () => nearMiss(sentences[Math.floor(random() * sentences.length)]!, random, makeWords));
    const lookup = (query: string) =>
      database!.withSite(SITE, (tx) => lookupEntry(tx, SITE, { normalizedQuery: normalizeText(query), sourceLang: 'en', targetLang: 'de', threshold: 75 }));
    for (const query of queries.slice(0, 50)) await lookup(query); // warm the cache and the statement plans
    const timings: number[] = [];
    let hits = 0;
    for (const query of queries.slice(50)) {
      const started = performance.now();
      if (await lookup(query)) hits += 1;
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    const p99 = percentile(timings, 99);

    const request = { normalizedQuery: normalizeText(queries[0]!), sourceLang: 'en', targetLang: 'de', threshold: 75 };
    const plan = await database.withSite(SITE, async (tx) => {
      await tx.query(setIndexThreshold(75));
      const rows = await tx.query<{ 'QUERY PLAN': string }>(sql`EXPLAIN (ANALYZE, BUFFERS) ${fuzzyLookupQuery(SITE, request)}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    const indexed = /Index Cond: \(.*normalized_source % /.test(plan) && plan.includes('tm_entries_trigram');
    console.log(plan.split('\n').map((line) => `  ${line}`).join('\n'));
    console.log(
      `tm: ${lookups} near-miss lookups among ${count} entries: p50 ${percentile(timings, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ` +
        `max ${timings.at(-1)!.toFixed(2)} ms (target p99 < ${TARGET_P99_MS} ms; ${p99 < TARGET_P99_MS ? 'PASS' : 'FAIL'}); ` +
        `${hits} matched at 75 (${((100 * hits) / lookups).toFixed(1)} %); plan ${indexed ? 'uses tm_entries_trigram with % as its index condition' : 'DOES NOT use the trigram index'}`,
    );
  } finally {
    await database?.close();
    await owner?.close();
    if (values.keep) console.log(`tm: kept ${scratch.name}`);
    else await scratch.drop();
  }
}
