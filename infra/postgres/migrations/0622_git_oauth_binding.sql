-- An OAuth state is bound to the browser that asked for it (docs/integrations.md "OAuth"): the
-- SHA-256 of a nonce the authorize answer set as an HttpOnly cookie, which the callback must bring,
-- and who asked. A state handed to someone else (a victim's consent linking their account to another
-- site's integration) is refused at the callback.
ALTER TABLE git_oauth_states ADD COLUMN binding_hash text NOT NULL DEFAULT '', ADD COLUMN issued_by text;
