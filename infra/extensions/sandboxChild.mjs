// The extension sandbox's child process (started by ./sandbox.ts; docs/extensions.md, "The sandbox").
// Plain JavaScript, run by `node` itself with the permission model on (no file system but this file,
// no child processes, no workers, no addons), no code generation from strings, a small heap and an
// empty environment. The extension's code runs in a `vm` context of its own: the language's built-ins
// only (no require, process, import, timers, fetch or console). Between that context and this file
// only strings cross: the context's API sends JSON text to `hostSend`, and replies come back as JSON
// text to the context's `receive`, so no object of this realm (whose Function could reach `process`)
// is ever handed to the extension. The parent process checks every call against the grants.
import vm from 'node:vm';

/** The longest JSON text the context may hand over at once (a result, a call, a log line). */
const MAX_MESSAGE_CHARACTERS = 1024 * 1024;

/** The prelude, evaluated in the context before the extension: its API and the run's driver. */
const PRELUDE = `(() => {
  'use strict';
  const hostSend = globalThis.__svcHost;
  delete globalThis.__svcHost;
  // V8 gives every context a console of its own; extensions log through their API.
  delete globalThis.console;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const freeze = Object.freeze;
  const SafePromise = Promise;
  const SafeError = Error;
  const SafeMap = Map;
  const pending = new SafeMap();
  const pendingGet = SafeMap.prototype.get;
  const pendingSet = SafeMap.prototype.set;
  const pendingDelete = SafeMap.prototype.delete;
  let nextId = 0;
  const send = (message) => { hostSend(stringify(message)); };
  const describe = (error) => {
    try {
      if (error !== null && typeof error === 'object') return { name: String(error.name), message: String(error.message) };
      return { name: 'Error', message: String(error) };
    } catch {
      return { name: 'Error', message: 'an error that could not be described' };
    }
  };
  const call = (method, args) => new SafePromise((resolve, reject) => {
    nextId += 1;
    pendingSet.call(pending, nextId, { resolve, reject });
    send({ type: 'call', id: nextId, method, args });
  });
  const api = freeze({
    items: freeze({
      list: (collection, query) => call('items.list', [collection, query === undefined ? {} : query]),
      read: (collection, id, query) => call('items.read', [collection, id, query === undefined ? {} : query]),
    }),
    log: (...values) => call('log', values.map((value) => (typeof value === 'string' ? value : stringify(value)))),
  });
  const receive = (json) => {
    const reply = parse(json);
    const waiting = pendingGet.call(pending, reply.id);
    if (!waiting) return;
    pendingDelete.call(pending, reply.id);
    if (reply.ok) {
      waiting.resolve(reply.value === undefined ? undefined : parse(reply.value));
      return;
    }
    const error = new SafeError(reply.error.message);
    error.code = reply.error.code;
    waiting.reject(error);
  };
  const finish = (output) => {
    let json;
    try {
      json = stringify(output === undefined ? null : output);
    } catch (error) {
      send({ type: 'done', ok: false, ...describe(error) });
      return;
    }
    send({ type: 'done', ok: true, output: json === undefined ? 'null' : json });
  };
  const prepare = (factory, inputJson, entry) => {
    globalThis.__svcStart = () => {
      delete globalThis.__svcStart;
      let result;
      try {
        const module = { exports: {} };
        factory.call(undefined, module, module.exports);
        const exported = module.exports === null || module.exports === undefined ? undefined : module.exports[entry];
        if (typeof exported !== 'function') throw new SafeError('The bundle exports no function "' + entry + '" (module.exports.' + entry + ')');
        result = SafePromise.resolve(exported.call(module.exports, parse(inputJson), api));
      } catch (error) {
        result = SafePromise.reject(error);
      }
      result.then(finish, (error) => send({ type: 'done', ok: false, ...describe(error) }));
    };
  };
  return { receive, prepare };
})()`;

function sendToParent(message) {
  if (process.connected) process.send(message);
}

/** Whether this process really runs under the permission model: the parent refuses to run code otherwise. */
function isSandboxed() {
  const permission = process.permission;
  if (!permission) return false;
  return !permission.has('fs.write') && !permission.has('child') && !permission.has('worker');
}

/** What the context hands over: forwarded as text, bounded; the parent parses and checks it. */
function hostSend(json) {
  try {
    if (typeof json !== 'string') return;
    if (json.length > MAX_MESSAGE_CHARACTERS) {
      sendToParent({ type: 'oversized', characters: json.length });
      return;
    }
    sendToParent({ type: 'sandbox', json });
  } catch {
    // Never throw into the context: an error object of this realm would reach the extension.
  }
}

function run({ code, entry, input, timeoutMs }) {
  const context = vm.createContext(Object.create(null), { name: 'extension', codeGeneration: { strings: false, wasm: false } });
  context.__svcHost = hostSend;
  const driver = new vm.Script(PRELUDE, { filename: 'svc-extension-prelude.js' }).runInContext(context);
  let factory;
  try {
    factory = new vm.Script(`(function (module, exports) {\n${code}\n})`, { filename: 'extension.js', lineOffset: -1 }).runInContext(context, { timeout: timeoutMs });
  } catch (error) {
    sendToParent({ type: 'failed', kind: error?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' ? 'timeout' : 'error', message: `The code does not compile: ${String(error?.message)}` });
    return;
  }
  if (typeof factory !== 'function') {
    sendToParent({ type: 'failed', kind: 'error', message: 'The code must not end its own module wrapper' });
    return;
  }
  driver.prepare(factory, input, entry);
  process.on('message', (message) => {
    if (message?.type === 'reply' && typeof message.json === 'string') driver.receive(message.json);
  });
  try {
    new vm.Script('globalThis.__svcStart()', { filename: 'svc-extension-start.js' }).runInContext(context, { timeout: timeoutMs });
  } catch (error) {
    // The start catches the extension's own errors: what reaches here is the time limit, or stack exhaustion.
    sendToParent({ type: 'failed', kind: error?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' ? 'timeout' : 'error', message: String(error?.message) });
  }
}

// Defence in depth, should the context ever be escaped: what would load network or native modules is gone.
for (const name of ['getBuiltinModule', 'dlopen', 'binding', '_linkedBinding']) {
  try {
    process[name] = undefined;
  } catch {
    // not writable on this Node: the permission model and the missing code generation still stand
  }
}
process.on('disconnect', () => process.exit(0));
process.once('message', (message) => {
  if (message?.type === 'start') run(message);
});
sendToParent({ type: 'ready', sandboxed: isSandboxed() });
