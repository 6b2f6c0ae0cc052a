-- Time travel reads item_history through a derived table (src/modules/items/historyAsOf.ts): the
-- moment is a bound parameter and the test is `valid_from <= t AND (valid_to > t OR valid_to IS NULL)`,
-- which the planner estimates from statistics under row-level security (a range's `@>` is not
-- leakproof, so it was estimated blindly and led to scans of every valid row). The view, which read
-- the moment from the `svc.as_of` setting, and the GiST index of validity ranges, which only that
-- test used, go; every history write paid for the index.
DROP VIEW IF EXISTS items_as_of;
DROP INDEX IF EXISTS item_history_as_of;
