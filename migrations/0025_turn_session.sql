-- A send's live-session check in its context read (docs/decisions/0015): the access-token middleware of
-- `POST /v1/threads/{id}/messages` verifies the token alone, and the turn's first round trip runs
-- hearth_session_admit (migration 0022) before anything else. With `p_session` NULL the caller has checked the
-- session itself (retries, previews). A `gate` row comes first, hearth_session_admit's row in the spare columns
-- (name = the limit's name, NULL when the session is not live; number = reset seconds; model, url, reference =
-- quota, used, window as text); a session that is not live, or a request over its limit, reads nothing more (no
-- admission, no lease). It also makes hearth_stream_release SECURITY DEFINER (see the end).

DROP FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid);
CREATE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint, p_lease uuid,
                                    p_session uuid)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    admission jsonb;
    gate record;
BEGIN
    IF p_session IS NOT NULL THEN
        -- Before anything else, as the middleware would have: a session that is not live reads nothing.
        SELECT * INTO gate FROM hearth_session_admit(p_tenant, p_session, p_user);
        RETURN QUERY SELECT 'gate', NULL::uuid, gate.reset_seconds, CASE WHEN gate.active THEN gate.name END,
                            gate.quota::text, gate.used::text, gate.window_seconds::text, NULL::bytea;
        IF NOT coalesce(gate.active AND gate.used <= gate.quota, false) THEN
            RETURN;
        END IF;
    END IF;
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    RETURN QUERY SELECT 'thread', NULL::uuid, NULL::integer, t.session_type, t.domain,
                        extract(epoch FROM t.crisis_at)::bigint::text, CASE WHEN t.domain_pinned THEN 'pinned' END, NULL::bytea
        FROM threads t WHERE t.id = p_thread AND t.user_id = p_user;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF p_lease IS NOT NULL THEN
        admission := hearth_coaching_admit(p_tenant, p_user, p_thread, p_lease);
        RETURN QUERY SELECT 'admission', NULL::uuid, NULL::integer, NULL, NULL, NULL, admission::text, NULL::bytea;
        IF admission->>'outcome' <> 'admitted' THEN
            RETURN;
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
END
$$;
REVOKE ALL ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid, uuid) TO hearth_app;

-- Gives a lease back early: an answer that was never started (a replay, a failure before the provider call).
-- SECURITY DEFINER because that call is a statement of its own, outside any tenant scope; it filters by tenant.
-- (Migration 0022 defined it without; 0022 itself stays as it was applied.)
CREATE OR REPLACE FUNCTION hearth_stream_release(p_tenant uuid, p_lease uuid) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$ DELETE FROM stream_leases WHERE tenant_id = p_tenant AND lease_id = p_lease $$;
