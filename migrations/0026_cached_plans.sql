-- The small SECURITY DEFINER functions on hot paths, rewritten in PL/pgSQL with the same bodies (issue 3).
--
-- Postgres 15 plans the body of a LANGUAGE sql function afresh every time a statement calls it when the
-- function cannot be inlined, and SECURITY DEFINER or a SET clause always prevents inlining. PL/pgSQL keeps each
-- statement's plan for the life of the connection. Measured with track_functions = 'all' on the one-stream
-- scenario: hearth_rate_take (twice per send, once per signed-in request) ~0.2 ms a call,
-- hearth_stream_release (every stored answer) ~0.13 ms; called 2,000 times in a loop, 75 µs against 30 µs.
-- hearth_persona_link_tenant is every landing page's first statement.

CREATE OR REPLACE FUNCTION hearth_rate_take(p_tenant uuid, p_name text, p_subject text, p_quota bigint, p_window_seconds integer)
    RETURNS TABLE (used bigint, reset_seconds integer)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        INSERT INTO rate_windows AS r (tenant_id, name, subject, window_start, window_seconds, quota, used)
        VALUES (p_tenant, p_name, p_subject,
                to_timestamp(floor(extract(epoch FROM now()) / p_window_seconds) * p_window_seconds),
                p_window_seconds, p_quota, 1)
        ON CONFLICT (tenant_id, name, subject) DO UPDATE SET
            used = CASE WHEN r.window_start = excluded.window_start THEN r.used + 1 ELSE 1 END,
            window_start = excluded.window_start, window_seconds = excluded.window_seconds, quota = excluded.quota
        RETURNING r.used, greatest(1, ceil(extract(epoch FROM r.window_start - now()) + r.window_seconds))::integer;
END
$$;

CREATE OR REPLACE FUNCTION hearth_stream_release(p_tenant uuid, p_lease uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
BEGIN
    DELETE FROM stream_leases WHERE tenant_id = p_tenant AND lease_id = p_lease;
END
$$;

CREATE OR REPLACE FUNCTION hearth_persona_link_tenant(p_slug text) RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
BEGIN
    RETURN (SELECT l.tenant_id FROM persona_links l WHERE l.slug = p_slug);
END
$$;
