-- How a tenant's app is reached from its share links (Personas owns it): the host its links live on (the public
-- page and /.well-known/apple-app-site-association are served there), the app's name and custom URL scheme, its
-- App Store id, and the app ids (TEAMID.bundle.id) that universal links open. A page request names only a host
-- and a slug, so this is read before any tenant is known: a platform table like tenants, without row-level
-- security. Nothing in it is secret (Apple publishes all of it).
CREATE TABLE tenant_app_links (
    tenant_id    uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    link_host    text UNIQUE CHECK (link_host ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+(:[0-9]{1,5})?$'),
    app_name     text CHECK (length(app_name) BETWEEN 1 AND 60),
    url_scheme   text CHECK (url_scheme ~ '^[a-z][a-z0-9+.-]{0,31}$'),
    app_store_id text CHECK (app_store_id ~ '^[0-9]{1,12}$'),
    app_ids      text[] NOT NULL DEFAULT '{}'
                 CHECK (cardinality(app_ids) <= 10 AND array_to_string(app_ids, ' ') ~ '^([A-Z0-9]{10}\.[A-Za-z0-9.-]+( |$))*$'),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_app_links TO hearth_app;

-- The tenant of a slug, for the public page, which arrives without one. SECURITY DEFINER so it can read across
-- tenants; it answers the tenant and nothing else, revoked links included (they get their own 410 page).
CREATE FUNCTION hearth_persona_link_tenant(p_slug text) RETURNS uuid
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        SELECT l.tenant_id FROM persona_links l WHERE l.slug = p_slug
    $$;
REVOKE ALL ON FUNCTION hearth_persona_link_tenant(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_persona_link_tenant(text) TO hearth_app;
