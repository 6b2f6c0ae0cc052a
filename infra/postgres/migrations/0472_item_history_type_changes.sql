-- A field's type change closes the open item_history rows that hold a value of the field and opens
-- their converted copies from the change's moment (projections/itemHistoryProjection.ts): the item
-- at a moment before the change shows the old value, at a moment after it the converted one, as the
-- item itself does. Both rows belong to the same version of the item, so a row is keyed by its
-- version and the moment it starts.
ALTER TABLE item_history DROP CONSTRAINT item_history_pkey;
ALTER TABLE item_history ADD PRIMARY KEY (site_id, collection, id, version, valid_from);
