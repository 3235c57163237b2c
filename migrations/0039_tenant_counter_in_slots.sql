-- A tenant's requests per second are counted in thirty-two rows, not one (issue 3, decision 0024).
--
-- Every signed-in request counted against one `rate_windows` row per tenant, and a statement holds the lock on a
-- row it updated until it commits: its WAL flushed to disk. Decision 0017 moved that update to the statement's last
-- step, but the tenant's requests still took the row one after another, each waiting for the commit before it. On
-- this machine that is 0.15-0.3 ms a request; on a cloud disk whose flush takes 1-2 ms it caps a tenant at a few
-- hundred requests a second, however many servers it runs. Sampling pg_stat_activity during 64 users thinking
-- 250 ms found a quarter of the sends' active time waiting on `transactionid` for that row (docs/performance.md).
--
-- Now each connection counts in one of thirty-two rows of the tenant's window, chosen by its backend's process id
-- (`subject` is the slot's number, 0-31), and the count checked is the sum of the window's rows: its own, taken
-- and locked, and the others as committed. Two statements wait for each other only when their connections share
-- a slot. A pool's connections (20 by default) are opened one after another, so their process ids are consecutive
-- and their slots distinct.
--
-- What it gives up: a statement does not see the counts of others still uncommitted, so in a second of many
-- concurrent requests a few more than the quota (at most the number of statements counting at the same instant,
-- less one) can pass. The limit protects a tenant's capacity, and that many over it does not threaten it.
--
-- The rows are the same table's, named as before; the hourly sweep deletes them once their window has ended, and
-- the single row (subject '') of the last second is left to it.
CREATE OR REPLACE FUNCTION hearth_tenant_second_take(p_tenant uuid)
    RETURNS TABLE (quota bigint, used bigint, reset_seconds integer)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
#variable_conflict use_column
DECLARE
    per_second bigint;
    slot text := (pg_backend_pid() % 32)::text;
    taken record;
BEGIN
    SELECT l.requests_per_second INTO per_second FROM tenant_limits l WHERE l.tenant_id = p_tenant;
    SELECT * INTO taken FROM hearth_rate_take(p_tenant, 'tenant-requests-per-second', slot, per_second, 1);
    RETURN QUERY SELECT per_second, taken.used + coalesce(sum(r.used), 0)::bigint, taken.reset_seconds
        FROM rate_windows r
        WHERE r.tenant_id = p_tenant AND r.name = 'tenant-requests-per-second' AND r.subject <> slot
          AND r.window_start = to_timestamp(floor(extract(epoch FROM now())));
END
$$;
