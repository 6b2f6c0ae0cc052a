// The schema area's commands (the command registry, docs/architecture.md): collections, fields and
// relations created, changed and deleted, and a collection brought to a bundle. Dangerous: every
// delete; applying a bundle (it removes the fields and relations the bundle lacks); a collection's
// change (its editorial workflow decides who may publish without review); a field's change (its
// sensitivity decides whether its values are sealed and their reads logged).
import { z } from 'zod';
import {
  collectionCreateInput,
  collectionMetaInput,
  collectionName,
  collectionSchemaInput,
  fieldInput,
  fieldName,
  fieldPatchInput,
  relationInput,
  relationPatchInput,
} from '../../../domain/content/schemaInput.ts';
import { RELATION_ID_PATTERN } from '../../../domain/content/schemaModel.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import {
  addField,
  applyCollectionSchema,
  createCollection,
  createRelation,
  deleteCollection,
  deleteRelation,
  removeField,
  updateCollection,
  updateField,
  updateRelation,
} from './handlers.ts';
import { exportCollectionSchema } from './queries.ts';

export const relationId = z.string().regex(RELATION_ID_PATTERN);
const ADMIN = { access: 'siteAdmin' } as const;

const createCollectionCommand = defineCommand({
  name: 'schema.createCollection',
  description: 'Create a collection with its meta and, optionally, its fields.',
  input: collectionCreateInput,
  ...ADMIN,
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createCollection(context, siteId, input, metadata),
});

const updateCollectionCommand = defineCommand({
  name: 'schema.updateCollection',
  description: "Change a collection's meta: display, singleton, status and sort fields, editorial workflow, versioning.",
  input: z.object({ name: collectionName, changes: collectionMetaInput }),
  bodyKey: 'changes',
  ...ADMIN,
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => updateCollection(context, siteId, input.name, input.changes, metadata),
});

const deleteCollectionCommand = defineCommand({
  name: 'schema.deleteCollection',
  description: 'Delete a collection and the relations that need it (its items and history stay in the log).',
  input: z.object({ name: collectionName }),
  ...ADMIN,
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteCollection(context, siteId, input.name, metadata),
});

const applyCollectionCommand = defineCommand({
  name: 'schema.applyCollection',
  description:
    'Bring a collection to exactly a schema bundle (its meta, fields and relations): only the differences are written. ' +
    "A field's type change over values converts them (those that do not parse become null; the log keeps the old ones) and needs allowDestructive.",
  input: z.object({ name: collectionName, bundle: collectionSchemaInput, allowDestructive: z.boolean().default(false) }),
  bodyKey: 'bundle',
  ...ADMIN,
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const result = await applyCollectionSchema(context, siteId, input.name, input.bundle, metadata, { allowDestructive: input.allowDestructive });
    const schema = await context.database.withSite(siteId, (tx) => exportCollectionSchema(tx, siteId, input.name));
    const conversions = Object.keys(result.conversions).length > 0 ? { conversions: result.conversions } : {};
    return { schema, applied: result.events > 0, events: result.events, diff: result.diff, ...conversions };
  },
});

const createFieldCommand = defineCommand({
  name: 'schema.createField',
  description: 'Add a field to a collection.',
  input: z.object({ collection: collectionName, definition: fieldInput }),
  bodyKey: 'definition',
  ...ADMIN,
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => addField(context, siteId, input.collection, input.definition, metadata),
});

const updateFieldCommand = defineCommand({
  name: 'schema.updateField',
  description:
    "Change a field's properties or its type. A type change over values converts them (those that do not parse become null; " +
    'the log keeps the old ones) and needs allowDestructive; a change of the translatable option is refused while values exist.',
  input: z.object({ collection: collectionName, field: fieldName, changes: fieldPatchInput, allowDestructive: z.boolean().default(false) }),
  bodyKey: 'changes',
  ...ADMIN,
  dangerous: true,
  handler: (context, { siteId, input, metadata }) =>
    updateField(context, siteId, input.collection, input.field, input.changes, metadata, { allowDestructive: input.allowDestructive }),
});

const deleteFieldCommand = defineCommand({
  name: 'schema.deleteField',
  description: 'Remove a field from a collection (refused while a relation uses it).',
  input: z.object({ collection: collectionName, field: fieldName }),
  ...ADMIN,
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => removeField(context, siteId, input.collection, input.field, metadata),
});

const createRelationCommand = defineCommand({
  name: 'schema.createRelation',
  description: 'Create a relation between collections (m2o, o2m, m2m, m2a…).',
  input: relationInput,
  ...ADMIN,
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createRelation(context, siteId, input, metadata),
});

const updateRelationCommand = defineCommand({
  name: 'schema.updateRelation',
  description: "Change what a relation does on delete, its related field or its allowed collections (never what it links).",
  input: z.object({ id: relationId, changes: relationPatchInput }),
  bodyKey: 'changes',
  ...ADMIN,
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => updateRelation(context, siteId, input.id, input.changes, metadata),
});

const deleteRelationCommand = defineCommand({
  name: 'schema.deleteRelation',
  description: 'Delete a relation.',
  input: z.object({ id: relationId }),
  ...ADMIN,
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteRelation(context, siteId, input.id, metadata),
});

export const schemaCommands = {
  createCollection: createCollectionCommand,
  updateCollection: updateCollectionCommand,
  deleteCollection: deleteCollectionCommand,
  applyCollection: applyCollectionCommand,
  createField: createFieldCommand,
  updateField: updateFieldCommand,
  deleteField: deleteFieldCommand,
  createRelation: createRelationCommand,
  updateRelation: updateRelationCommand,
  deleteRelation: deleteRelationCommand,
};
