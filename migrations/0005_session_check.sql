-- The live-session check runs before every signed-in request. Inside a tenant-scoped transaction it costs
-- four round trips (BEGIN, tenant scope, SELECT, COMMIT); as this one function call it costs one.
-- SECURITY DEFINER lets it read auth_sessions without the tenant scope; it filters by tenant itself and
-- answers nothing but yes or no.
CREATE FUNCTION hearth_session_is_active(p_tenant uuid, p_session uuid, p_user uuid) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        SELECT EXISTS (
            SELECT 1 FROM auth_sessions
            WHERE tenant_id = p_tenant AND id = p_session AND user_id = p_user AND revoked_at IS NULL
        )
    $$;

REVOKE ALL ON FUNCTION hearth_session_is_active(uuid, uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_session_is_active(uuid, uuid, uuid) TO hearth_app;
