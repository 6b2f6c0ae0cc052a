-- Failed sign-ins counted per account, client IP, reason and window (src/modules/auth/failedSignIns.ts),
-- so that a stream of failures cannot grow the log without bound: the first SVC_SIGNIN_FAILURE_EVENTS
-- failures of a window are one event each, the rest are counted here and written as one event with
-- their count once the window has closed; then the row is deleted. Not a read model (no event
-- describes a row; a rebuild has nothing to refill): its one writer is failedSignIns.ts.
-- email_hash and ip_hash are SHA-256 of the normalized email and the client IP, never the values.
CREATE TABLE sign_in_failure_windows (
  site_id      text        NOT NULL,
  email_hash   text        NOT NULL,
  ip_hash      text        NOT NULL,
  reason       text        NOT NULL,
  window_start timestamptz NOT NULL,
  window_end   timestamptz NOT NULL,
  user_id      text,
  failures     integer     NOT NULL,
  PRIMARY KEY (site_id, email_hash, ip_hash, reason, window_start)
);
CREATE INDEX sign_in_failure_windows_closing ON sign_in_failure_windows (site_id, window_end);
SELECT svc_enable_site_rls('sign_in_failure_windows');

