-- Who a realtime ticket was issued to (the principal: its session or API key, role and admin flag),
-- so that the socket it opens ends with that credential (src/modules/realtime/revocations.ts). A
-- ticket issued before this column (within the minute before an upgrade) has none and is refused.
ALTER TABLE realtime_tickets ADD COLUMN holder jsonb;
