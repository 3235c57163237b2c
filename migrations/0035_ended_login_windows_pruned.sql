-- Failed sign-in counters whose window has ended are deleted every hour (Accounts' `EndedLoginWindows`).
--
-- login_throttle keeps a counter per account and per client address (HMAC keys, migration 0002). A successful
-- sign-in deletes its account's counter, but an address's counter is only decremented, and a counter that never
-- saw a success stayed: the table held one row for every address and account that ever failed. A counter whose
-- window has ended says nothing (the next attempt starts it again at 1, as LoginThrottle.reserve does), so
-- deleting it loses nothing; an attempt racing the delete starts a new window either way.
-- SECURITY DEFINER: one statement for every tenant. The window is the server's (HEARTH_LOGIN_THROTTLE_WINDOW_SECONDS).
CREATE FUNCTION hearth_login_throttle_prune(p_window_seconds bigint) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        WITH ended AS (
            DELETE FROM login_throttle WHERE window_started_at <= now() - make_interval(secs => p_window_seconds)
            RETURNING 1
        )
        SELECT count(*) FROM ended
    $$;
REVOKE ALL ON FUNCTION hearth_login_throttle_prune(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_login_throttle_prune(bigint) TO hearth_app;
