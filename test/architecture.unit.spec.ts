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
    return path.endsWith('.ts') || path.endsWith('.tsx') ? [path] : [];
  });
}

// The SDK's sources, but not the types generated from the OpenAPI document (sdk/scripts/generate.ts).
const files = [...SOURCE_FOLDERS, 'sdk/src', 'sdk/scripts'].flatMap(sourceFiles).filter((file) => !file.startsWith('sdk/src/generated/'));
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
          : file.startsWith('sdk/src/') ? target.startsWith('sdk/src/')
          : true;
        if (!allowed) offending.push(`${file} → ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('keeps changeItem.ts out of other areas: what they ask of an item write is an item-write hook', () => {
    const file = 'src/modules/items/changeItem.ts';
    const specifiers = [...text(file).matchAll(/^(?:import|export)[^;]*? from '([^']+)';/gms)].map((match) => match[1]!);
    const otherAreas = specifiers
      .map((specifier) => resolved(file, specifier))
      .filter((target) => target.startsWith('src/modules/') && !target.startsWith('src/modules/items/'));
    expect(specifiers.length).toBeGreaterThan(0);
    expect(otherAreas).toEqual([]);
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

  it('starts loops and timers only in an area runtime or the core runtime, never from a routes file, and elects leaders one way', () => {
    // The files that may run a recurring timer, each a part that an area's manifest (src/modules/index.ts)
    // or the composition root (src/boot/) starts and stops.
    const timerFiles: Record<string, string> = {
      'src/boot/scheduler.ts': 'the one scheduler tick',
      'src/modules/cdc/dueSubscriptions.ts': 'the sweep for due webhook and sink subscriptions (cdc runtime)',
      'src/modules/realtime/logTailer.ts': 'the tailer poll fallback (realtime runtime)',
      'src/modules/realtime/realtimeHub.ts': 'socket heartbeats (realtime runtime)',
      'src/modules/pageviews/pageviewService.ts': 'the counter flush (pageviews runtime)',
      'src/modules/flows/flowsRuntime.ts': 'the dispatcher of runs queued without a job (flows runtime)',
      'src/runtime/fieldIndexBuilder.ts': 'cancelling a build while it stops',
      'src/rateLimit/rateLimitStore.ts': 'sweeping expired windows of the in-memory store',
      'src/server/app.ts': 'closing idle connections while the server closes',
    };
    // What starts a background part; called only by the composition root and these runtime files.
    const starter = /(?<!function )\b(start\w*(Runtime|Service|Reactor|Tailer|Scheduler)|create\w*(Runtime|Daemon|Builder))\(/;
    const starterFiles = ['src/modules/cdc/changeFeedRuntime.ts', 'src/modules/realtime/realtimeService.ts', 'src/modules/flows/flowsRuntime.ts', 'src/modules/cloudSync/cloudSyncRuntime.ts'];
    // A routes file registers routes: a one-off timeout of a request is all the timing it may do.
    const requestTimeouts = ['src/modules/utils/routes.ts'];
    const isRoutes = (file: string) => file.startsWith('src/modules/') && (/\/(routes|\w+Routes)\.ts$/.test(file) || file === 'src/modules/index.ts');
    const offending: string[] = [];
    for (const file of files.filter((path) => path.startsWith('src/') || path.startsWith('infra/'))) {
      const source = text(file);
      if (/\bsetInterval\(/.test(source) && !(file in timerFiles)) offending.push(`${file}: setInterval outside a runtime file`);
      if (starter.test(source) && !/^src\/(boot|cli)\//.test(file) && !starterFiles.includes(file)) offending.push(`${file}: starts a background part`);
      // One leader election: only src/runtime/leaderElection.ts tries a leader lock.
      if (/pg_try_advisory_lock/.test(source) && file !== 'src/runtime/leaderElection.ts') offending.push(`${file}: a leader election of its own`);
      if (!isRoutes(file)) continue;
      if (/\b(setInterval|setImmediate|watch\w+|create\w*(Fingerprints|Queue|Watcher|Broker|Hub|ResponseCache))\(|\.process\(|\bnotifier\.on\(/.test(source)) {
        offending.push(`${file}: a loop or a listener in a routes file`);
      }
      if (/\bsetTimeout\(/.test(source) && !requestTimeouts.includes(file)) offending.push(`${file}: a timer in a routes file`);
    }
    expect(offending).toEqual([]);
  });

  it('runs commands only through the registry: no route, server or CLI file calls a command handler', () => {
    // docs/architecture.md, "The command registry". A value import names what a file calls: `import
    // { a, b as c, type T } from '…'` gives a and b (types are no calls).
    const valueImports = (file: string) =>
      [...text(file).matchAll(/^import\s+(?!type\s)\{([^}]*)\}\s+from\s+'(\.[^']+)';/gms)].map((match) => ({
        target: resolved(file, match[2]!),
        names: match[1]!.split(',').map((name) => name.trim()).filter((name) => name && !name.startsWith('type ')).map((name) => name.split(/\s+as\s+/)[0]!),
      }));
    const isRoutes = (file: string) => file.startsWith('src/modules/') && /\/(routes|\w+Routes)\.ts$/.test(file);
    const isCommands = (file: string) => /^src\/modules\/\w+\/commands\.ts$/.test(file);
    const engine = 'src/runtime/commandHandler.ts';
    // An area's handler module: it calls the command handler itself (handleCommand, handleCommandIn, inSiteTransaction).
    const handlerModules = new Set(
      files.filter((file) => file.startsWith('src/modules/') && !isRoutes(file) && valueImports(file).some((entry) => entry.target === engine)),
    );
    // What a routes file may call of the engine or of a handler module without the registry: the
    // documented exceptions, and the reads and constants kept beside an area's handlers.
    const exceptions: Record<string, { names: string[]; reason: string }> = {
      'src/modules/auth/routes.ts → src/modules/auth/handlers.ts': { names: ['login', 'refresh', 'logout', 'currentUser'], reason: 'the sign-in surface: it establishes the principal commands need' },
      'src/modules/auth/registrationRoutes.ts → src/modules/auth/registration.ts': {
        names: ['register', 'verifyEmail', 'resendVerification', 'forgotPassword', 'resetPassword', 'acceptInvite'],
        reason: 'the sign-in surface: it makes the accounts and credentials commands are run with',
      },
      'src/modules/instance/routes.ts → src/modules/instance/handlers.ts': { names: ['createSite', 'deleteSite', 'listSites'], reason: 'the instance token acts on no site, and commands run in one' },
      'src/modules/files/mediaRoutes.ts → src/modules/files/fileHandlers.ts': { names: ['registerFile'], reason: "a raw-bytes upload: its input is the request's byte stream, stored under the registration's lock" },
      'src/modules/config/routes.ts → src/modules/config/importManifest.ts': { names: ['importManifest'], reason: 'the dry run, which writes nothing (the import itself is config.import)' },
      'src/modules/git/routes.ts → src/modules/git/oauthCallback.ts': {
        names: ['completeOAuth'],
        reason: "a provider's OAuth redirect carries no principal: its single-use state names the site and integration",
      },
      'src/modules/git/routes.ts → src/modules/git/webhooks.ts': {
        names: ['receiveDelivery'],
        reason: "a provider's webhook delivery carries no principal: its signature names the integration it acts for",
      },
      'src/modules/cdc/routes.ts → src/modules/items/sensitiveReads.ts': { names: ['logSensitiveReads'], reason: 'a read records the sensitive values it showed: part of the read' },
      'src/modules/editorial/routes.ts → src/modules/editorial/handlers.ts': { names: ['REVIEWER_CAPABILITY'], reason: 'a constant' },
      'src/modules/encryption/routes.ts → src/modules/encryption/keyAdmin.ts': { names: ['listKeys', 'envelopeStatus'], reason: 'reads' },
      'src/modules/erasure/routes.ts → src/modules/erasure/erasureHandlers.ts': { names: ['readErasure'], reason: 'a read' },
      'src/modules/schema/routes.ts → src/modules/schema/handlers.ts': { names: ['diffCollectionSchemas'], reason: 'a read (the diff a schema apply would make)' },
      'src/modules/settings/routes.ts → src/modules/settings/settingsStore.ts': { names: ['readEffectiveSettings', 'readStoredSettings'], reason: 'reads' },
      'src/modules/site/routes.ts → src/modules/site/siteConfiguration.ts': { names: ['readSite'], reason: 'a read' },
    };
    const offending: string[] = [];
    for (const file of files.filter(isRoutes)) {
      for (const { target, names } of valueImports(file)) {
        if (target !== engine && !handlerModules.has(target)) continue;
        const allowed = exceptions[`${file} → ${target}`]?.names ?? [];
        for (const name of names.filter((name) => !allowed.includes(name))) offending.push(`${file} calls ${name} of ${target}`);
      }
    }
    // A registered command's handler (what an area's commands.ts imports from a module that reaches the
    // engine, itself or through the modules it calls) is called by commands.ts files and by other
    // handlers (area modules that are not routes), nobody else.
    const reaching = new Set(handlerModules);
    for (let grown = true; grown; ) {
      grown = false;
      for (const file of files.filter((path) => path.startsWith('src/modules/') && !isRoutes(path) && !isCommands(path) && !reaching.has(path))) {
        if (valueImports(file).some(({ target }) => reaching.has(target))) grown = reaching.add(file).size > 0;
      }
    }
    const notHandlers: Record<string, string> = {
      'src/modules/editorial/handlers.ts#REVIEWER_CAPABILITY': 'a constant',
      'src/modules/settings/settingsStore.ts#readEffectiveSettings': 'a read',
    };
    const registered = new Set(
      files
        .filter(isCommands)
        .flatMap((file) => valueImports(file).filter(({ target }) => reaching.has(target)))
        .flatMap(({ target, names }) => names.map((name) => `${target}#${name}`))
        .filter((handler) => !(handler in notHandlers)),
    );
    const callers: Record<string, string> = {
      'src/modules/config/routes.ts → src/modules/config/importManifest.ts#importManifest': 'the dry run, which writes nothing',
      'src/modules/files/mediaRoutes.ts → src/modules/files/fileHandlers.ts#registerFile': "a raw-bytes upload: its input is the request's byte stream",
      'src/cli/configRun.ts → src/modules/config/importManifest.ts#importManifest': "the operator's `svc config`: no principal in the site, it imports as the system (dry runs too)",
    };
    for (const file of files.filter((path) => !isCommands(path) && (isRoutes(path) || !path.startsWith('src/modules/')))) {
      for (const { target, names } of valueImports(file)) {
        for (const handler of names.map((name) => `${target}#${name}`).filter((handler) => registered.has(handler))) {
          if (!(`${file} → ${handler}` in callers)) offending.push(`${file} calls the registered handler ${handler}`);
        }
      }
    }
    expect(registered.has('src/modules/teams/handlers.ts#createTeam')).toBe(true);
    expect(offending).toEqual([]);
  });

  it('keeps the Studio a client of the public API: studio/src imports only itself, the SDK package and libraries', () => {
    const offending: string[] = [];
    for (const file of sourceFiles('studio/src')) {
      for (const specifier of [...text(file).matchAll(/^(?:import|export)[^;]*? from '([^']+)';/gms)].map((match) => match[1]!)) {
        const allowed = specifier.startsWith('.') ? resolved(file, specifier).startsWith('studio/src/') : !specifier.startsWith('/');
        if (!allowed) offending.push(`${file} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('keeps every source file, tests and the Studio included, under 500 lines', () => {
    const long = [...files, ...sourceFiles('test'), ...sourceFiles('studio/src')].map((file) => ({ file, lines: text(file).split('\n').length })).filter(({ lines }) => lines > 500);
    expect(long).toEqual([]);
  });
});
