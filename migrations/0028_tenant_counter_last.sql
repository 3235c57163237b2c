-- A tenant's requests-per-second counter taken last in the statements that check their own session (issue 3).
--
-- Every signed-in request counts against its tenant's requests per second: one row (`rate_windows`) that all of
-- the tenant's people update, and a statement holds the lock on a row it updated until it commits. The access-token
-- middleware's statement commits at once, but a send's context read (hearth_turn_context: admission, memory,
-- history) and a history page (hearth_message_page) took the counter first and held it through all of their work,
-- so a tenant's sends queued on that row: sampling pg_stat_activity during 64 streams found 40% of the active
-- backends waiting on `transactionid` in hearth_turn_context, and none once the counter was left out.
--
-- Now those two check the session and the person's requests per minute first (rows of their own), do their work,
-- and take the tenant's counter as their last step, so the row is held only while the statement commits. Over the
-- limit, that step raises SQLSTATE HR429 (detail: quota, used, reset seconds) and the statement's whole
-- transaction rolls back: admission, lease and count alike, so a refused request leaves nothing behind. The
-- middleware's hearth_session_admit keeps its answer; the person's and the tenant's parts are functions of their
-- own, which all three use.
--
-- The context read also commits without waiting for its WAL to reach the disk (synchronous_commit off for its own
-- transaction). It writes rate counters and stream leases, both unlogged tables, and on a person's first send or
-- a new trial session their subscription's trial bookkeeping; the exchange committed right after it flushes the
-- WAL past it, so only a crash between the two round trips could lose that bookkeeping, and with it nothing the
-- person sent. (Reads write WAL too when they prune dead row versions, which made this commit wait for the disk
-- now and then; a row lock in hearth_coaching_admit was avoided for the same reason, migration 0022.)

-- Whether the session is live and, when it is, this request counted against the person's requests per minute
-- (their plan's; the trial plan's before they have a subscription row). `active` false: nothing is counted.
CREATE FUNCTION hearth_person_admit(p_tenant uuid, p_session uuid, p_user uuid)
    RETURNS TABLE (active boolean, name text, quota bigint, window_seconds integer, used bigint, reset_seconds integer)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
DECLARE
    per_minute bigint;
    taken record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM auth_sessions s WHERE s.tenant_id = p_tenant AND s.id = p_session AND s.user_id = p_user
                   AND s.revoked_at IS NULL) THEN
        RETURN QUERY SELECT false, NULL::text, NULL::bigint, NULL::integer, NULL::bigint, NULL::integer;
        RETURN;
    END IF;
    SELECT p.requests_per_minute INTO per_minute
    FROM billing_plans p
    WHERE p.tenant_id = p_tenant
      AND p.code = coalesce((SELECT s.plan_code FROM subscriptions s WHERE s.user_id = p_user AND s.tenant_id = p_tenant), 'trial');
    SELECT * INTO taken FROM hearth_rate_take(p_tenant, 'requests-per-minute', p_user::text, per_minute, 60);
    RETURN QUERY SELECT true, 'requests-per-minute', per_minute, 60, taken.used, taken.reset_seconds;
END
$$;
REVOKE ALL ON FUNCTION hearth_person_admit(uuid, uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_person_admit(uuid, uuid, uuid) TO hearth_app;

-- This request counted against the tenant's requests per second.
CREATE FUNCTION hearth_tenant_second_take(p_tenant uuid)
    RETURNS TABLE (quota bigint, used bigint, reset_seconds integer)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
DECLARE
    per_second bigint;
    taken record;
BEGIN
    SELECT l.requests_per_second INTO per_second FROM tenant_limits l WHERE l.tenant_id = p_tenant;
    SELECT * INTO taken FROM hearth_rate_take(p_tenant, 'tenant-requests-per-second', '', per_second, 1);
    RETURN QUERY SELECT per_second, taken.used, taken.reset_seconds;
END
$$;
REVOKE ALL ON FUNCTION hearth_tenant_second_take(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_tenant_second_take(uuid) TO hearth_app;

-- The last step of a statement that checked its session: counts the request against the tenant's requests per
-- second and, over the limit, raises HR429, rolling back everything the statement did.
CREATE FUNCTION hearth_tenant_second_admit(p_tenant uuid) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    taken record;
BEGIN
    SELECT * INTO taken FROM hearth_tenant_second_take(p_tenant);
    IF taken.used > taken.quota THEN
        RAISE EXCEPTION 'tenant-requests-per-second' USING ERRCODE = 'HR429',
            DETAIL = format('%s %s %s', taken.quota, taken.used, taken.reset_seconds);
    END IF;
END
$$;
REVOKE ALL ON FUNCTION hearth_tenant_second_admit(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_tenant_second_admit(uuid) TO hearth_app;

-- The middleware's check, from the two parts: the tenant's limit when that is exceeded, else the person's.
CREATE OR REPLACE FUNCTION hearth_session_admit(p_tenant uuid, p_session uuid, p_user uuid)
    RETURNS TABLE (active boolean, name text, quota bigint, window_seconds integer, used bigint, reset_seconds integer)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
DECLARE
    person record;
    tenant record;
BEGIN
    SELECT * INTO person FROM hearth_person_admit(p_tenant, p_session, p_user);
    IF person.active THEN
        SELECT * INTO tenant FROM hearth_tenant_second_take(p_tenant);
        IF tenant.used > tenant.quota THEN
            RETURN QUERY SELECT true, 'tenant-requests-per-second', tenant.quota, 1, tenant.used, tenant.reset_seconds;
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT person.active, person.name, person.quota, person.window_seconds, person.used, person.reset_seconds;
END
$$;

-- As in migration 0025, with the person checked first and the tenant counted last (above). Rows are unchanged:
-- the `gate` row carries the person's limit.
CREATE OR REPLACE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint,
                                               p_lease uuid, p_session uuid)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    admission jsonb;
    gate record;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    IF p_session IS NOT NULL THEN
        SELECT * INTO gate FROM hearth_person_admit(p_tenant, p_session, p_user);
        RETURN QUERY SELECT 'gate', NULL::uuid, gate.reset_seconds, CASE WHEN gate.active THEN gate.name END,
                            gate.quota::text, gate.used::text, gate.window_seconds::text, NULL::bytea;
        IF NOT coalesce(gate.active AND gate.used <= gate.quota, false) THEN
            RETURN;
        END IF;
    END IF;
    <<reading>>
    BEGIN
        PERFORM set_config('app.tenant_id', p_tenant::text, true);
        RETURN QUERY SELECT 'thread', NULL::uuid, NULL::integer, t.session_type, t.domain,
                            extract(epoch FROM t.crisis_at)::bigint::text, CASE WHEN t.domain_pinned THEN 'pinned' END, NULL::bytea
            FROM threads t WHERE t.id = p_thread AND t.user_id = p_user;
        IF NOT FOUND THEN
            EXIT reading;
        END IF;
        IF p_lease IS NOT NULL THEN
            admission := hearth_coaching_admit(p_tenant, p_user, p_thread, p_lease);
            RETURN QUERY SELECT 'admission', NULL::uuid, NULL::integer, NULL, NULL, NULL, admission::text, NULL::bytea;
            IF admission->>'outcome' <> 'admitted' THEN
                EXIT reading;
            END IF;
        END IF;
        -- A persona's published copy, while it is live (a suspended persona's threads coach without it).
        RETURN QUERY SELECT 'persona', p.id, p.published_revision, NULL, NULL, NULL, p.published::text, NULL::bytea
            FROM threads t JOIN personas p ON p.id = t.persona_id
            WHERE t.id = p_thread AND p.published IS NOT NULL AND p.status <> 'suspended';
        RETURN QUERY SELECT 'key', NULL::uuid, k.master_version, NULL, NULL, NULL, NULL, k.wrapped_key
            FROM user_keys k WHERE k.user_id = p_user;
        RETURN QUERY SELECT 'profile', NULL::uuid, NULL::integer, NULL, NULL, NULL, NULL, c.profile_ciphertext
            FROM context_profiles c WHERE c.user_id = p_user AND c.profile_ciphertext IS NOT NULL;
        RETURN QUERY SELECT * FROM hearth_memory_context(p_user, p_thread);
        RETURN QUERY SELECT 'provider', NULL::uuid, p.position, p.kind, p.model, p.base_url, p.api_key_ref, NULL::bytea
            FROM tenant_llm_providers p ORDER BY p.position;
        RETURN QUERY SELECT 'domains', NULL::uuid, NULL::integer, NULL, NULL, NULL, (SELECT max(d.id) FROM domain_versions d)::text,
                            NULL::bytea;
        RETURN QUERY SELECT 'message', recent.id, NULL::integer, recent.role, NULL, NULL, NULL, recent.content_ciphertext
            FROM (SELECT m.id, m.role, m.content_ciphertext, m.seq FROM messages m
                  WHERE m.thread_id = p_thread AND m.status IN ('complete', 'interrupted')
                    AND (p_before IS NULL OR m.seq < (SELECT b.seq FROM messages b WHERE b.id = p_before))
                  ORDER BY m.seq DESC LIMIT p_history) recent
            ORDER BY recent.seq;
    END reading;
    IF p_session IS NOT NULL THEN
        PERFORM hearth_tenant_second_admit(p_tenant);
    END IF;
END
$$;

-- As in migration 0027, with the person checked first and the tenant counted last (above).
CREATE OR REPLACE FUNCTION hearth_message_page(p_tenant uuid, p_user uuid, p_thread uuid, p_session uuid, p_newest boolean,
                                               p_position bigint, p_limit bigint)
    RETURNS TABLE (kind text, id uuid, seq bigint, role text, status text, reply_to uuid, provider text, model text,
                   created_at timestamptz, crisis_kind text, sealed bytea,
                   limit_name text, quota bigint, used bigint, window_seconds integer, reset_seconds integer)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    gate record;
BEGIN
    SELECT * INTO gate FROM hearth_person_admit(p_tenant, p_session, p_user);
    RETURN QUERY SELECT 'gate', NULL::uuid, NULL::bigint, NULL, NULL, NULL::uuid, NULL, NULL, NULL::timestamptz, NULL,
                        NULL::bytea, CASE WHEN gate.active THEN gate.name END, gate.quota, gate.used, gate.window_seconds,
                        gate.reset_seconds;
    IF NOT coalesce(gate.active AND gate.used <= gate.quota, false) THEN
        RETURN;
    END IF;
    <<reading>>
    BEGIN
        PERFORM set_config('app.tenant_id', p_tenant::text, true);
        RETURN QUERY SELECT 'key', NULL::uuid, k.master_version::bigint, NULL, NULL, NULL::uuid, NULL, NULL, NULL::timestamptz,
                            NULL, k.wrapped_key, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer
            FROM user_keys k WHERE k.user_id = p_user;
        IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = p_thread AND t.user_id = p_user) THEN
            EXIT reading;
        END IF;
        RETURN QUERY SELECT 'thread', NULL::uuid, NULL::bigint, NULL, NULL, NULL::uuid, NULL, NULL, NULL::timestamptz, NULL,
                            NULL::bytea, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer;
        IF p_newest THEN
            RETURN QUERY SELECT 'message', m.id, m.seq, m.role, m.status, m.reply_to, m.provider, m.model, m.created_at,
                                m.crisis_kind, m.content_ciphertext, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer
                FROM messages m WHERE m.thread_id = p_thread AND (p_position IS NULL OR m.seq < p_position)
                ORDER BY m.seq DESC LIMIT p_limit + 1;
        ELSE
            RETURN QUERY SELECT 'message', m.id, m.seq, m.role, m.status, m.reply_to, m.provider, m.model, m.created_at,
                                m.crisis_kind, m.content_ciphertext, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer
                FROM messages m WHERE m.thread_id = p_thread AND (p_position IS NULL OR m.seq > p_position)
                ORDER BY m.seq ASC LIMIT p_limit + 1;
        END IF;
    END reading;
    PERFORM hearth_tenant_second_admit(p_tenant);
END
$$;
