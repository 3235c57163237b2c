-- Ended rate windows are deleted every hour (HearthPlatform's `EndedRateWindows`).
--
-- `rate_windows` keeps one row per (tenant, limit, subject), reset in place when its window has passed
-- (migration 0020). Nothing deleted a row, so the table held one for every person and every hashed client address
-- ever limited, and what reads a tenant's rows beyond one key (the console's people at their limits, a person's
-- open windows in support) read them all. A row whose window has ended says nothing: the next request resets it
-- to 1 as if it were new. So deleting it loses nothing, and a request racing the delete either re-inserts the row
-- afresh or has already moved its window forward, which the delete's condition then no longer matches.
-- SECURITY DEFINER: one statement for every tenant, as hearth_rate_take writes them.
CREATE FUNCTION hearth_rate_windows_prune() RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        WITH ended AS (
            DELETE FROM rate_windows WHERE window_start + make_interval(secs => window_seconds) <= now()
            RETURNING 1
        )
        SELECT count(*) FROM ended
    $$;
REVOKE ALL ON FUNCTION hearth_rate_windows_prune() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_rate_windows_prune() TO hearth_app;
