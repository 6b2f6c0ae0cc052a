// `npm run generate` in sdk/ (or `node --import tsx sdk/scripts/generate.ts` from the root): writes
// src/generated/openapi.ts from the service's OpenAPI document, built here over DATABASE_URL's
// database (or the embedded one), or read from `--from <file>`. `--check` writes nothing and exits 1
// when the file differs from what the document gives: the build runs it so types never drift.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cliLogger } from '../../src/cli/cliLogger.ts';
import { openApiDocument } from '../../src/boot/service.ts';
import { loadConfig } from '../../src/config/config.ts';
import { GENERATED_TYPES_PATH, renderOpenApiTypes } from './openapiTypes.ts';

const { values } = parseArgs({ options: { from: { type: 'string' }, check: { type: 'boolean' } } });
const root = fileURLToPath(new URL('../../', import.meta.url));
const target = `${root}${GENERATED_TYPES_PATH}`;

async function loadDocument(): Promise<unknown> {
  if (values.from) return JSON.parse(readFileSync(values.from, 'utf8'));
  const config = loadConfig();
  return openApiDocument(config, { logger: cliLogger(config) });
}

const rendered = await renderOpenApiTypes(await loadDocument());
if (values.check) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: a drift like any other
  }
  if (current !== rendered) {
    console.error(`${GENERATED_TYPES_PATH} differs from the service's OpenAPI document: run npm run generate in sdk/ and commit the result`);
    process.exit(1);
  }
  console.error(`${GENERATED_TYPES_PATH} matches the OpenAPI document`);
} else {
  writeFileSync(target, rendered);
  console.error(`wrote ${GENERATED_TYPES_PATH}`);
}
