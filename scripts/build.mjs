// `npm run build`: compiles the service to dist/ with tsc (tsconfig.build.json), then copies what is
// not TypeScript but is read at run time next to the compiled files: the SQL migrations and
// functions, the extension sandbox's child script, and package.json (it makes dist/ ESM and carries
// the version the service reports). The Studio is built (when stale) and copied to dist/studio/dist,
// where the compiled service looks for it.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStudio, studioIsStale } from './studio/build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

const assets = /\.(sql|mjs)$/;
function copyAssets(directory) {
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (assets.test(name)) {
      const target = join(dist, relative(root, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
}
for (const folder of ['src', 'infra', 'domain', 'projections']) copyAssets(join(root, folder));
cpSync(join(root, 'package.json'), join(dist, 'package.json'));
if (studioIsStale()) buildStudio();
cpSync(join(root, 'studio', 'dist'), join(dist, 'studio', 'dist'), { recursive: true });
process.stdout.write(`built ${relative(process.cwd(), dist) || '.'}\n`);
