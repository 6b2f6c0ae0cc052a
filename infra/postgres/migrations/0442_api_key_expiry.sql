-- An API key may expire (api_key.created's `expiresAt`): the authenticator answers 401 TOKEN_EXPIRED
-- from then on. NULL is a key that does not expire (every key created before this migration).
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
