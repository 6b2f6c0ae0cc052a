// The shape docs/architecture.md describes, checked: no import cycle among source files, layers that
// point one way, one write path, typed projections, and files small enough to read.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const SOURCE_FOLDERS = ['domain', 'infra', 'projections', 'src', 'scripts'];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = SOURCE_FOLDERS.flatMap(sourceFiles);
const text = (file: string) => readFileSync(join(root, file), 'utf8');
const importsOf = (file: string) => [...text(file).matchAll(/^import[^;]*? from '([^']+)';/gms)].map((match) => match[1]!);
const resolved = (file: string, specifier: string) => relative(root, join(root, file, '..', specifier));

describe('the architecture', () => {
  it('has no import cycle among source files', async () => {
    const graph = await madge(['domain', 'infra', 'projections', 'src'].map((folder) => join(root, folder)), {
      fileExtensions: ['ts'],
      tsConfig: join(root, 'tsconfig.json'),
    });
    expect(graph.circular()).toEqual([]);
  }, 60_000);

  it('keeps the layers of docs/architecture.md: each imports only the ones below it', () => {
    const shared = ['src/config/', 'src/query/', 'src/schema/', 'src/access/', 'src/auth/', 'src/runtime/'];
    const offending: string[] = [];
    for (const file of files) {
      for (const specifier of importsOf(file).filter((spec) => spec.startsWith('.'))) {
        const target = resolved(file, specifier);
        const allowed =
          file.startsWith('domain/') ? target.startsWith('domain/')
          : file.startsWith('infra/') ? target.startsWith('domain/') || target.startsWith('infra/')
          : file.startsWith('projections/') ? !target.startsWith('src/') && !target.startsWith('scripts/')
          : shared.some((layer) => file.startsWith(layer)) ? !/^src\/(modules|server|boot|cli)\//.test(target)
          : file.startsWith('src/modules/') ? !/^src\/(boot|cli)\//.test(target) && (!target.startsWith('src/server/') || /^src\/server\/(serverDeps|errorHandler|routeKit)\.ts$/.test(target))
          : file.startsWith('src/server/') ? !/^src\/(boot|cli)\//.test(target)
          : true;
        if (!allowed) offending.push(`${file} → ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('appends events only through the command handler', () => {
    const appending = files.filter(
      (file) => file.startsWith('src/') && !file.startsWith('src/runtime/') && /\b(appendToStream|appendFirstEvents|applyInline)\(/.test(text(file)),
    );
    expect(appending).toEqual([]);
  });

  it('types projection handlers without casts', () => {
    expect(sourceFiles('projections').filter((file) => text(file).includes('as unknown as'))).toEqual([]);
  });

  it('keeps every source file, tests included, under 500 lines', () => {
    const long = [...files, ...sourceFiles('test')].map((file) => ({ file, lines: text(file).split('\n').length })).filter(({ lines }) => lines > 500);
    expect(long).toEqual([]);
  });
});
