// `npm run bench -- insights [--part panels,tm,reports,presets] [part options]`: the figures of issue #32
// (default: every part).
//   panels:  a count grouped by an indexed field over 1,000,000 items (`--items N`), p50/p99 and the plan
//            (scripts/bench/support/insightsPanels.ts; target under 500 ms);
//   tm:      translation memory lookups among 100,000 entries (support/insightsTranslation.ts);
//   reports: a compliance report over 1,000,000 audit entries (support/insightsReports.ts);
//   presets: effective view and bookmark lookups among 100,000 presets (support/insightsPresets.ts).
// Each part takes the arguments it knows and ignores the others; every part makes its own scratch
// database on DATABASE_URL's server and drops it.
import { parseArgs } from 'node:util';

type Part = (args: string[]) => Promise<void>;

const PARTS: Record<string, () => Promise<Part>> = {
  panels: async () => (await import('./support/insightsPanels.ts')).runPanels,
  tm: async () => (await import('./support/insightsTranslation.ts')).runTranslationMemory,
  reports: async () => (await import('./support/insightsReports.ts')).runComplianceReports,
  presets: async () => (await import('./support/insightsPresets.ts')).runPresets,
};

const usage = `usage: npm run bench -- insights [--part ${Object.keys(PARTS).join(',')}] [--items N] [--entries N] [--lookups N] [--keep]`;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: false, options: { part: { type: 'string', default: Object.keys(PARTS).join(',') }, help: { type: 'boolean', default: false } } });
  if (values.help) {
    console.log(usage);
    return;
  }
  const names = String(values.part).split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(name in PARTS));
  if (unknown.length > 0 || names.length === 0) throw new Error(`unknown part ${unknown.join(', ') || '(none)'}\n${usage}`);
  // The parts never see --part: each parses the options it knows.
  const rest = args.filter((arg, index) => !arg.startsWith('--part') && args[index - 1] !== '--part');
  for (const name of names) {
    console.log(`\n== insights: ${name} ==`);
    const part = await PARTS[name]!();
    await part(rest);
  }
}
