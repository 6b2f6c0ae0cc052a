// The typed item queries compile as types/itemQueries.typetest.ts says: its narrowed answers hold, and
// each wrong filter operator, field name, path or sort key there fails to compile (tsc reports an
// unused @ts-expect-error otherwise).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));

it('types item queries by the site’s collection types, and refuses wrong operators, fields and paths at compile time', { timeout: 120_000 }, async () => {
  const result = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', project]).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
  expect(result.output).toBe('');
  expect(result.code).toBe(0);
});
