// Who writes each read-model table. Its projection is its one writer (`tables`); beside it, a few
// maintenance writers that no event describes are declared with their reason, on the projection
// (`maintainers`) or, for tables a projection does not list, here. test/projections/
// readModelOwners.unit.spec.ts checks the source against this: a new writer must be declared.
import { projections as allProjections } from './index.ts';
import type { MaintenanceWriter, Projection } from './projection.ts';

export interface TableOwnership {
  table: string;
  /** The one writer of the table's rows: a projection (by name), or a reactor (by file) for its own state. */
  owner: { projection: string } | { reactor: string };
  /** How the owner writes it when not by statements of its own. */
  through?: string;
  maintainers: readonly MaintenanceWriter[];
}

/** Tables no projection lists in `tables`, with their owner. */
const TABLES_BESIDE_PROJECTIONS: readonly TableOwnership[] = [
  {
    table: 'item_count_deltas',
    owner: { projection: 'items' },
    through: 'the triggers on `items` (migration 0104): one row per statement and key, so a rebuild of `items` counts down, then up',
    maintainers: [
      {
        table: 'item_count_deltas',
        writer: 'src/modules/items/itemCounts.ts (compactItemCounts, by svc_compact_item_counts)',
        why: "the scheduler folds each key's rows into one so that a total sums few rows; every sum stays as it was.",
      },
    ],
  },
  {
    table: 'cdc_webhook_state',
    owner: { reactor: 'src/modules/cdc/webhookReactor.ts' },
    maintainers: [
      {
        table: 'cdc_webhook_state',
        writer: 'src/modules/cdc/subscriptionHandlers.ts (deleteSubscription)',
        why: "a deleted subscription's delivery state goes with it, in the delete command's transaction.",
      },
    ],
  },
  {
    table: 'cdc_deliveries',
    owner: { reactor: 'src/modules/cdc/webhookReactor.ts' },
    maintainers: [
      {
        table: 'cdc_deliveries',
        writer: 'src/modules/cdc/subscriptionHandlers.ts (deleteSubscription)',
        why: "a deleted subscription's delivery attempts go with it, in the delete command's transaction.",
      },
      {
        table: 'cdc_deliveries',
        writer: 'src/modules/cdc/retention.ts (pruneSiteChangeFeed)',
        why: 'retention: attempts older than SVC_CDC_RETENTION are removed with the feed entries of that age.',
      },
    ],
  },
];

/** Every read-model table with its owner and maintainers; throws when a table would have two owners. */
export function tableOwners(projections: readonly Projection[] = allProjections): TableOwnership[] {
  const owners = new Map<string, TableOwnership>();
  const claim = (ownership: TableOwnership) => {
    const other = owners.get(ownership.table);
    if (other) throw new Error(`Table ${ownership.table} has two owners: ${JSON.stringify(other.owner)} and ${JSON.stringify(ownership.owner)}`);
    owners.set(ownership.table, ownership);
  };
  for (const projection of projections) {
    for (const maintainer of projection.maintainers ?? []) {
      if (!projection.tables.includes(maintainer.table)) {
        throw new Error(`Projection ${projection.name} declares a maintainer of ${maintainer.table}, which is not one of its tables`);
      }
    }
    for (const table of projection.tables) {
      claim({ table, owner: { projection: projection.name }, maintainers: (projection.maintainers ?? []).filter((maintainer) => maintainer.table === table) });
    }
  }
  for (const ownership of TABLES_BESIDE_PROJECTIONS) claim(ownership);
  return [...owners.values()];
}
