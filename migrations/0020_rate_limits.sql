-- Rate limits shared by every server instance (HearthPlatform's RateLimits owns these; decision 0012).
--
-- A limit is a fixed window: `quota` uses per `window_seconds`, windows aligned to the epoch so every instance
-- agrees where one ends (Retry-After and the RateLimit header's `t`). One row per (tenant, limit, subject),
-- reset in place when its window has passed, so the table holds one row per active key, not one per window.
--
-- UNLOGGED: a counter is not worth the WAL flush it would add to every request. A transaction that writes only
-- unlogged tables commits without waiting for the disk, and holds the row (a tenant's per-second counter is
-- one hot row) for microseconds. After a crash Postgres empties the table: every window starts afresh.
CREATE UNLOGGED TABLE rate_windows (
    tenant_id      uuid NOT NULL,
    name           text NOT NULL,
    -- whose uses these are: a user id, a hashed client address, or '' for the whole tenant
    subject        text NOT NULL,
    window_start   timestamptz NOT NULL,
    window_seconds integer NOT NULL CHECK (window_seconds > 0),
    quota          bigint NOT NULL,
    used           bigint NOT NULL,
    PRIMARY KEY (tenant_id, name, subject)
);
SELECT hearth_isolate_tenant_table('rate_windows');

-- Counts one use and returns the count in the current window and the seconds until it ends. Every attempt
-- counts, refused ones too: a client hammering after a 429 stays limited until the window ends, no longer.
-- SECURITY DEFINER: per-address limits are taken before any tenant scope exists.
CREATE FUNCTION hearth_rate_take(p_tenant uuid, p_name text, p_subject text, p_quota bigint, p_window_seconds integer)
    RETURNS TABLE (used bigint, reset_seconds integer)
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        INSERT INTO rate_windows AS r (tenant_id, name, subject, window_start, window_seconds, quota, used)
        VALUES (p_tenant, p_name, p_subject,
                to_timestamp(floor(extract(epoch FROM now()) / p_window_seconds) * p_window_seconds),
                p_window_seconds, p_quota, 1)
        ON CONFLICT (tenant_id, name, subject) DO UPDATE SET
            used = CASE WHEN r.window_start = excluded.window_start THEN r.used + 1 ELSE 1 END,
            window_start = excluded.window_start, window_seconds = excluded.window_seconds, quota = excluded.quota
        RETURNING r.used, greatest(1, ceil(extract(epoch FROM r.window_start - now()) + r.window_seconds))::integer
    $$;
REVOKE ALL ON FUNCTION hearth_rate_take(uuid, text, text, bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_rate_take(uuid, text, text, bigint, integer) TO hearth_app;

-- A tenant's own limits, the ones that are not per plan: all of its requests per second, and sign-up and
-- sign-in attempts per client address. Every tenant has a row (the trigger below), so a limit is never missing.
CREATE TABLE tenant_limits (
    tenant_id                    uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    requests_per_second          integer NOT NULL DEFAULT 200 CHECK (requests_per_second BETWEEN 1 AND 1000000),
    signups_per_hour_per_address integer NOT NULL DEFAULT 20 CHECK (signups_per_hour_per_address BETWEEN 1 AND 1000000),
    logins_per_minute_per_address integer NOT NULL DEFAULT 10 CHECK (logins_per_minute_per_address BETWEEN 1 AND 1000000),
    updated_at                   timestamptz NOT NULL DEFAULT now()
);
SELECT hearth_isolate_tenant_table('tenant_limits');

CREATE FUNCTION hearth_tenant_limits_seed() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
BEGIN
    INSERT INTO tenant_limits (tenant_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    RETURN NEW;
END
$$;
CREATE TRIGGER tenant_limits_seed AFTER INSERT ON tenants FOR EACH ROW EXECUTE FUNCTION hearth_tenant_limits_seed();
INSERT INTO tenant_limits (tenant_id) SELECT id FROM tenants;

-- A sign-up or sign-in attempt from a client address (`p_action`: 'signup' or 'login'), counted against the
-- tenant's limit for it. The address is stored hashed.
CREATE FUNCTION hearth_address_take(p_tenant uuid, p_action text, p_address text)
    RETURNS TABLE (name text, quota bigint, window_seconds integer, used bigint, reset_seconds integer)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
DECLARE
    limit_name text;
    limit_quota bigint;
    limit_window integer;
BEGIN
    IF p_action = 'signup' THEN
        SELECT 'signups-per-hour', l.signups_per_hour_per_address, 3600 INTO limit_name, limit_quota, limit_window
        FROM tenant_limits l WHERE l.tenant_id = p_tenant;
    ELSE
        SELECT 'logins-per-minute', l.logins_per_minute_per_address, 60 INTO limit_name, limit_quota, limit_window
        FROM tenant_limits l WHERE l.tenant_id = p_tenant;
    END IF;
    RETURN QUERY SELECT limit_name, limit_quota, limit_window, t.used, t.reset_seconds
        FROM hearth_rate_take(p_tenant, limit_name, encode(sha256(convert_to(p_address, 'UTF8')), 'hex'), limit_quota, limit_window) t;
END
$$;
REVOKE ALL ON FUNCTION hearth_address_take(uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_address_take(uuid, text, text) TO hearth_app;
