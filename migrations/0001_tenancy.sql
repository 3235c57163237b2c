-- Tenancy: the platform tables every feature builds on.
--
-- hearth_app is the role the server runs as. It owns nothing and cannot bypass row-level security, so the
-- policies below bind it. Deployments log in as hearth_app itself or as a role granted it
-- (see docs/operations.md). Roles are cluster-wide, hence "create if missing".
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hearth_app') THEN
        CREATE ROLE hearth_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END
$$;
GRANT USAGE ON SCHEMA public TO hearth_app;
-- The server checks at startup that the schema is current (SchemaCheck).
GRANT SELECT ON schema_migrations TO hearth_app;

-- The tenant a transaction is scoped to (Database.withTenant sets it with set_config(..., true)).
-- NULL when unset, and `tenant_id = NULL` is never true: an unscoped query sees no tenant-owned rows.
CREATE FUNCTION hearth_tenant_id() RETURNS uuid
    LANGUAGE sql STABLE
    AS $$ SELECT nullif(current_setting('app.tenant_id', true), '')::uuid $$;

-- Makes a tenant-owned table tenant-isolated: row-level security with the one policy every such table uses,
-- and the app role's privileges. Later migrations call it for each table they add.
CREATE FUNCTION hearth_isolate_tenant_table(target regclass) RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', target);
    EXECUTE format('CREATE POLICY tenant_isolation ON %s USING (tenant_id = hearth_tenant_id()) WITH CHECK (tenant_id = hearth_tenant_id())', target);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO hearth_app', target);
END
$$;

CREATE TABLE tenants (
    id                  uuid PRIMARY KEY,
    slug                text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
    name                text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    password_min_length integer NOT NULL DEFAULT 8 CHECK (password_min_length BETWEEN 8 AND 128),
    apple_audiences     text[] NOT NULL DEFAULT '{}',
    -- Blind-index key for exact lookups of encrypted values, wrapped by master key index_key_version.
    index_key_version   integer NOT NULL,
    index_key_wrapped   bytea NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- Publishable keys apps send in X-Hearth-Client-Key. Several per tenant so a key can be rotated.
CREATE TABLE tenant_client_keys (
    key        text PRIMARY KEY,
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX tenant_client_keys_tenant ON tenant_client_keys (tenant_id);

GRANT SELECT, INSERT, UPDATE ON tenants, tenant_client_keys TO hearth_app;
