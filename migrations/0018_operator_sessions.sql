-- Operator sign-in (the operator API now; the console's cookie sessions build on it). Platform-level like
-- operators, so not row-level secured: a platform admin's session spans tenants.

-- Consecutive failed sign-ins; at the limit the account is locked until locked_until (a success resets both).
ALTER TABLE operators
    ADD COLUMN failed_logins int NOT NULL DEFAULT 0 CHECK (failed_logins >= 0),
    ADD COLUMN locked_until  timestamptz;

-- One row a sign-in. Only the SHA-256 of the bearer token is stored: a copy of the table signs no one in.
-- A session ends at expires_at, after the idle timeout without use, or when revoked (sign-out).
CREATE TABLE operator_sessions (
    id           uuid PRIMARY KEY,
    operator_id  uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    token_hash   bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz
);
CREATE INDEX operator_sessions_operator ON operator_sessions (operator_id);

GRANT SELECT, INSERT, UPDATE, DELETE ON operator_sessions TO hearth_app;
