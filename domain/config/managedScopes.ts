// The scopes a manifest manages: what `replace-managed` may delete when the manifest leaves it out.
// `schema`, `webhooks`, `settings` cover a whole kind; `collection:<name>` (the collection, its
// fields and the relations declared on it), `webhook:<name>` and `setting:<key>` cover one, or a
// family with a trailing `*` (`collection:blog_*`).

export type ManagedScope =
  | { kind: 'schema' | 'webhooks' | 'settings' }
  | { kind: 'collection' | 'webhook' | 'setting'; pattern: string; prefix: boolean };

/** What a scope may cover: a schema object by the collection it belongs to, a webhook by name, a setting by key. */
export type ScopedResource = { kind: 'schema'; collection: string } | { kind: 'webhook'; name: string } | { kind: 'setting'; key: string };

const WHOLE_KINDS = new Set(['schema', 'webhooks', 'settings']);
const ONE_OF = /^(collection|webhook|setting):([^*\s]+)(\*?)$|^(collection|webhook|setting):\*$/;

/** The scope a string names, or null when it names none. */
export function parseScope(text: string): ManagedScope | null {
  if (WHOLE_KINDS.has(text)) return { kind: text as 'schema' | 'webhooks' | 'settings' };
  const match = ONE_OF.exec(text);
  if (!match) return null;
  if (match[4]) return { kind: match[4] as 'collection' | 'webhook' | 'setting', pattern: '', prefix: true };
  return { kind: match[1] as 'collection' | 'webhook' | 'setting', pattern: match[2]!, prefix: match[3] === '*' };
}

function matches(scope: { pattern: string; prefix: boolean }, name: string): boolean {
  return scope.prefix ? name.startsWith(scope.pattern) : name === scope.pattern;
}

function covers(scope: ManagedScope, resource: ScopedResource): boolean {
  switch (scope.kind) {
    case 'schema':
      return resource.kind === 'schema';
    case 'webhooks':
      return resource.kind === 'webhook';
    case 'settings':
      return resource.kind === 'setting';
    case 'collection':
      return resource.kind === 'schema' && matches(scope, resource.collection);
    case 'webhook':
      return resource.kind === 'webhook' && matches(scope, resource.name);
    case 'setting':
      return resource.kind === 'setting' && matches(scope, resource.key);
  }
}

export function isManaged(scopes: readonly ManagedScope[], resource: ScopedResource): boolean {
  return scopes.some((scope) => covers(scope, resource));
}
