#!/usr/bin/env node
// Builds the Studio (studio/ → studio/dist/) with Vite. `--if-stale` builds only when dist/ is missing
// or older than a source file, so `npm start` and the tests build it once and then take a few ms.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const studio = join(root, 'studio');
const page = join(studio, 'dist', 'index.html');

/** The newest modification time under the directories the bundle is made of. */
function newestSource() {
  let newest = 0;
  const walk = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const path of [join(studio, 'src'), join(studio, 'index.html'), join(studio, 'vite.config.ts'), join(studio, 'public'), join(root, 'sdk', 'src')]) {
    if (existsSync(path)) walk(path);
  }
  return newest;
}

export function studioIsStale() {
  return !existsSync(page) || statSync(page).mtimeMs < newestSource();
}

export function buildStudio() {
  // The Studio's own Vite (studio/package.json), not the one the test runner brings to the root.
  let vite;
  try {
    vite = join(dirname(createRequire(join(studio, 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    throw new Error('Vite is not installed: run `npm install` at the repository root');
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: studio, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) throw new Error(`The Studio's build failed (exit ${result.status})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale') || studioIsStale()) {
    const started = Date.now();
    buildStudio();
    console.log(`Studio built to studio/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}
