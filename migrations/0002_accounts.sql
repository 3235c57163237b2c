-- Accounts: users, their data keys, credentials, sign-in sessions and refresh tokens.
-- Every table is tenant-owned: tenant_id leads its indexes, row-level security isolates tenants, and
-- (tenant_id, user_id) foreign keys keep a row from pointing at another tenant's user.
-- Deleting a user cascades to everything here, including the data key (crypto-shredding).

CREATE TABLE users (
    id           uuid PRIMARY KEY,
    tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    -- true until an email or Apple credential is attached (the upgrade keeps the same id and data)
    is_anonymous boolean NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, id)
);
CREATE INDEX users_tenant_created ON users (tenant_id, created_at);

-- The user's data key, sealed by a master key version (KeyRing). Personal fields are encrypted with it.
CREATE TABLE user_keys (
    tenant_id      uuid NOT NULL,
    user_id        uuid PRIMARY KEY,
    master_version integer NOT NULL,
    wrapped_key    bytea NOT NULL,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX user_keys_tenant_version ON user_keys (tenant_id, master_version);

CREATE TABLE email_credentials (
    tenant_id        uuid NOT NULL,
    user_id          uuid PRIMARY KEY,
    -- HMAC of the normalised address under the tenant's index key: lookups without storing it in clear
    email_index      bytea NOT NULL,
    email_ciphertext bytea NOT NULL,
    password_hash    text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, email_index),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE apple_identities (
    tenant_id     uuid NOT NULL,
    user_id       uuid PRIMARY KEY,
    subject_index bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, subject_index),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

-- One row per sign-in (a device): the refresh-token family. Revoking it ends every token in the family.
CREATE TABLE auth_sessions (
    id             uuid PRIMARY KEY,
    tenant_id      uuid NOT NULL,
    user_id        uuid NOT NULL,
    method         text NOT NULL CHECK (method IN ('anonymous', 'email', 'apple')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_used_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at     timestamptz,
    revoked_reason text CHECK (revoked_reason IN ('logout', 'reuse_detected', 'signed_out_remotely', 'upgraded')),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX auth_sessions_tenant_user ON auth_sessions (tenant_id, user_id);

-- Refresh tokens are stored as SHA-256 digests (they are 256-bit random, so a fast hash suffices).
-- used_at is set when a token is exchanged; presenting it again is reuse and revokes the family.
CREATE TABLE refresh_tokens (
    tenant_id  uuid NOT NULL,
    token_hash bytea NOT NULL,
    session_id uuid NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    PRIMARY KEY (tenant_id, token_hash)
);
CREATE INDEX refresh_tokens_tenant_session ON refresh_tokens (tenant_id, session_id);

-- Failed sign-in counters per account and per client address, keyed by an HMAC (no address in clear).
CREATE TABLE login_throttle (
    tenant_id         uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key               bytea NOT NULL,
    failures          integer NOT NULL,
    window_started_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, key)
);

SELECT hearth_isolate_tenant_table('users');
SELECT hearth_isolate_tenant_table('user_keys');
SELECT hearth_isolate_tenant_table('email_credentials');
SELECT hearth_isolate_tenant_table('apple_identities');
SELECT hearth_isolate_tenant_table('auth_sessions');
SELECT hearth_isolate_tenant_table('refresh_tokens');
SELECT hearth_isolate_tenant_table('login_throttle');
