// The readable form of an import's answer for `svc config diff|apply`: counts and risk, one line per
// planned change (+ create, ~ update, > rename, - delete; destructive ones marked), then the errors.
import type { ManifestDiff, PlannedChange, Resource } from '../../domain/config/configPlan.ts';
import type { ManifestError, Path } from '../../domain/config/manifest.ts';

const SYMBOL: Record<PlannedChange['action'], string> = { create: '+', update: '~', rename: '>', delete: '-' };
const SINGULAR: Record<Resource, string> = { collections: 'collection', fields: 'field', relations: 'relation', webhooks: 'webhook', settings: 'setting' };

/** `fields[3].collection` for ['body', 'fields', 3, 'collection']: where in the manifest file. */
export function manifestPath(path: Path): string {
  const inFile = path[0] === 'body' ? path.slice(1) : path;
  return inFile.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '') || '(manifest)';
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function changeLine(change: PlannedChange): string {
  const what = `${SYMBOL[change.action]} ${SINGULAR[change.resource]} ${change.key}`;
  const parts = [change.action === 'rename' ? `${what} (renamed from ${change.from})` : what];
  if (change.changes) parts.push(Object.entries(change.changes).map(([key, { from, to }]) => `${key}: ${shown(from)} → ${shown(to)}`).join(', '));
  if (change.reason) parts.push(`because ${change.reason}`);
  const line = parts.join('  ');
  return change.destructive ? `${line}\n      DESTRUCTIVE: ${change.destructive}` : line;
}

export function planText(diff: ManifestDiff | null, errors: readonly ManifestError[]): string {
  const lines: string[] = [];
  if (diff) {
    lines.push(`risk: ${diff.risk}`);
    for (const resource of Object.keys(SINGULAR) as Resource[]) {
      const counts = diff[resource];
      lines.push(`  ${resource.padEnd(12)} ${counts.create} create, ${counts.update} update, ${counts.unchanged} unchanged, ${counts.delete} delete`);
    }
    lines.push(diff.changes.length === 0 ? 'nothing to do' : `${diff.changes.length} change${diff.changes.length === 1 ? '' : 's'}:`);
    for (const change of diff.changes) lines.push(`  ${changeLine(change)}`);
  }
  if (errors.length > 0) {
    lines.push(`${errors.length} error${errors.length === 1 ? '' : 's'}:`);
    for (const error of errors) lines.push(`  ${error.code} at ${manifestPath(error.path)}: ${error.message}`);
  }
  return lines.join('\n');
}
