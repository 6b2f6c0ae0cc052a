-- Who created each change-feed subscription (the actor of its `cdc_subscription.created` event): a
-- webhook delivers what that principal may read, evaluated at each delivery. Existing subscriptions
-- take it from their first event.
ALTER TABLE cdc_subscriptions ADD COLUMN creator_kind text, ADD COLUMN creator_id text;

UPDATE cdc_subscriptions s
   SET creator_kind = e.metadata->'actor'->>'kind', creator_id = e.metadata->'actor'->>'id'
  FROM events e
 WHERE e.stream_id = s.site_id || '/cdc-subscription/' || s.id::text AND e.stream_position = 1;
