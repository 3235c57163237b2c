-- Operator accounts for the console. Platform-level (a platform admin spans tenants), so not row-level
-- secured; tenant_id names the tenant a tenant-scoped role administers.
CREATE TABLE operators (
    id            uuid PRIMARY KEY,
    email         text NOT NULL UNIQUE CHECK (email = lower(email) AND position('@' IN email) > 1),
    password_hash text NOT NULL,
    role          text NOT NULL CHECK (role IN ('platform_admin', 'tenant_admin', 'moderator', 'viewer')),
    tenant_id     uuid REFERENCES tenants (id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL DEFAULT now(),
    disabled_at   timestamptz,
    CHECK ((role = 'platform_admin') = (tenant_id IS NULL))
);
CREATE INDEX operators_tenant ON operators (tenant_id);

GRANT SELECT, INSERT, UPDATE ON operators TO hearth_app;
