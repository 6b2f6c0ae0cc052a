// View presets and bookmarks (docs/presets.md): a collection's layout, query and options for a user, a role or everyone.
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent } from './shapes.ts';

const scopes =
  'The scope is set by `userId` (user), `roleId` (role) or neither (global); both at once is 400. A member manages only their own user presets ' +
  '(`userId` equal to their id); role and global presets, and presets of other users, need a site administrator (403 otherwise). ' +
  '`bookmark: null` is the scope’s default view of the collection (one per scope and collection), a name a bookmark (unique per scope and collection, ' +
  'case-insensitive): a second is 409 CONFLICT.';
const query =
  '`query` is `{ fields?: string[], filter?: <JSON filter>, sort?: string[], limit?: 1–200, search? }`, checked against the collection’s fields with the ' +
  'items query language: a refusal is 400 at `body.query.<part>[.<index>]`. An unknown collection is 400 at `body.collection`; `userId` must be a user of the site ' +
  'and `roleId` a role of the site (400 at its path). `options` is any JSON object of at most 16 KB; `layout` 1–50 characters.';
const applied = 'Each with `sourceScope` (user, role or global): the caller’s own, then their role’s and its parents’ (nearest first), then global.';

export const presetOperations: OperationCatalogue = {
  'GET /presets': {
    summary: 'View presets',
    description: 'Oldest first, paged, optionally of one `collection`. Administrators see every preset of the site; others their own, their role chain’s and the global ones.',
  },
  'POST /presets': { summary: 'Create a view preset or bookmark', description: `${scopes} ${query}`, errors: ['CONFLICT'] },
  'GET /presets/effective': {
    summary: 'The default view of a collection for the caller',
    description: `\`collection\` is required. The caller’s own default view, else their role chain’s (walking parentId up), else the global one; \`{ data: null }\` when none. ${applied}`,
  },
  'GET /presets/bookmarks': { summary: 'The bookmarks of a collection the caller sees', description: `Their own, their role chain’s and the global ones, by name. ${applied}` },
  'GET /presets/{id}': { summary: 'One view preset', description: 'Administrators read any; others a preset they see (their own, their role chain’s, global), else 403.' },
  'PATCH /presets/{id}': {
    summary: 'Change a view preset',
    description: `Authorized against the preset’s current scope, and against the new one when \`userId\` or \`roleId\` moves it (naming one with a value clears the other). ${scopes} ${query}`,
    errors: ['CONFLICT'],
  },
  'DELETE /presets/{id}': { summary: 'Delete a view preset or bookmark', description: 'Authorized against the preset’s scope.', response: noContent('The preset is deleted.') },
};
