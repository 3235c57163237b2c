-- A send reads its context beside the statement that commits its question (issue 3, decision 0023).
--
-- hearth_turn_begin read the context and committed the question in one statement (decision 0018), so the turn
-- waited for both one after the other, then decrypted the history and routed the message before it could call the
-- provider. Now a send makes two statements at once, on two connections: hearth_turn_begin checks, admits and
-- commits as before but no longer reads the context, and hearth_turn_send_context reads it; the server decrypts
-- and routes what the read returns while the write is still committing. The provider is still called only once the
-- write has committed.
--
-- The two run in separate snapshots, so the read may begin after the write has committed (when it waits for a
-- connection): the history leaves the question out by its id. A send whose write refuses it (its session, a limit,
-- the admission, a replay) has its read thrown away unused.

-- As in migration 0032, with p_exclude: a message left out of the history (a send's own question).
DROP FUNCTION hearth_turn_reading(uuid, uuid, uuid, bigint);
CREATE FUNCTION hearth_turn_reading(p_user uuid, p_thread uuid, p_before uuid, p_history bigint, p_exclude uuid)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan
    SET max_parallel_workers_per_gather = 0
    AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        -- A suspended persona's threads coach without it.
        SELECT 'persona', p.id, p.published_revision, NULL, NULL, NULL, p.published::text, NULL::bytea
        FROM threads t JOIN personas p ON p.id = t.persona_id
        WHERE t.id = p_thread AND p.published IS NOT NULL AND p.status <> 'suspended'
        UNION ALL
        SELECT 'profile', NULL::uuid, NULL::integer, NULL, NULL, NULL, NULL, c.profile_ciphertext
        FROM context_profiles c WHERE c.user_id = p_user AND c.profile_ciphertext IS NOT NULL
        UNION ALL
        SELECT * FROM hearth_memory_context(p_user, p_thread)
        UNION ALL
        (SELECT 'provider', NULL::uuid, p.position, p.kind, p.model, p.base_url, p.api_key_ref, NULL::bytea
         FROM tenant_llm_providers p ORDER BY p.position)
        UNION ALL
        SELECT 'domains', NULL::uuid, NULL::integer, NULL, NULL, NULL, (SELECT max(d.id) FROM domain_versions d)::text, NULL::bytea
        UNION ALL
        SELECT 'history', NULL::uuid, count(*)::integer, string_agg(recent.role, ',' ORDER BY recent.seq), NULL, NULL, NULL,
               string_agg(uuid_send(recent.id) || int4send(octet_length(recent.content_ciphertext)) || recent.content_ciphertext,
                          ''::bytea ORDER BY recent.seq)
        FROM (SELECT m.id, m.role, m.content_ciphertext, m.seq FROM messages m
              WHERE m.thread_id = p_thread AND m.status IN ('complete', 'interrupted')
                AND (p_before IS NULL OR m.seq < (SELECT b.seq FROM messages b WHERE b.id = p_before))
                AND m.id IS DISTINCT FROM p_exclude
              ORDER BY m.seq DESC LIMIT p_history) recent;
END
$$;
REVOKE ALL ON FUNCTION hearth_turn_reading(uuid, uuid, uuid, bigint, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_reading(uuid, uuid, uuid, bigint, uuid) TO hearth_app;

-- As in migration 0030, reading through the function above.
CREATE OR REPLACE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint, p_lease uuid)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    admission jsonb;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
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
    RETURN QUERY SELECT 'key', NULL::uuid, k.master_version, NULL, NULL, NULL, NULL, k.wrapped_key
        FROM user_keys k WHERE k.user_id = p_user;
    RETURN QUERY SELECT * FROM hearth_turn_reading(p_user, p_thread, p_before, p_history, NULL);
END
$$;

-- A send's context, read while hearth_turn_begin commits its question: the thread's row, then what
-- hearth_turn_reading reads, with p_question left out of the history. Nothing when the thread is not the person's.
-- It writes nothing; the session is checked by hearth_turn_begin, whose refusal throws this read away.
CREATE FUNCTION hearth_turn_send_context(p_tenant uuid, p_user uuid, p_thread uuid, p_question uuid, p_history bigint)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    RETURN QUERY SELECT 'thread', NULL::uuid, NULL::integer, t.session_type, t.domain,
                        extract(epoch FROM t.crisis_at)::bigint::text, CASE WHEN t.domain_pinned THEN 'pinned' END, NULL::bytea
        FROM threads t WHERE t.id = p_thread AND t.user_id = p_user;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM hearth_turn_reading(p_user, p_thread, NULL, p_history, p_question);
END
$$;
REVOKE ALL ON FUNCTION hearth_turn_send_context(uuid, uuid, uuid, uuid, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_send_context(uuid, uuid, uuid, uuid, bigint) TO hearth_app;

-- As in migration 0033, without the context read and its p_history. Its rows: `gate`, then `thread` when the
-- thread is the person's, then `replay`, or `admission` followed (when admitted) by `resources` (in crisis support)
-- and `stored`.
DROP FUNCTION hearth_turn_begin(uuid, uuid, uuid, uuid, bigint, text, uuid, bytea, uuid, bytea, text, text[], text[], bigint);
CREATE FUNCTION hearth_turn_begin(
    p_tenant uuid, p_user uuid, p_thread uuid, p_session uuid, p_idempotency_key text,
    p_question uuid, p_question_sealed bytea, p_answer uuid, p_answer_sealed bytea,
    p_crisis_kind text, p_crisis_signals text[], p_locales text[], p_support_seconds bigint
) RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    admission jsonb;
    gate record;
    thread record;
BEGIN
    SELECT * INTO gate FROM hearth_person_admit(p_tenant, p_session, p_user);
    RETURN QUERY SELECT 'gate', NULL::uuid, gate.reset_seconds, CASE WHEN gate.active THEN gate.name END,
                        gate.quota::text, gate.used::text, gate.window_seconds::text, NULL::bytea;
    IF NOT coalesce(gate.active AND gate.used <= gate.quota, false) THEN
        RETURN;
    END IF;
    <<turn>>
    BEGIN
        PERFORM set_config('app.tenant_id', p_tenant::text, true);
        SELECT t.session_type, t.domain, t.crisis_at, t.domain_pinned INTO thread
            FROM threads t WHERE t.id = p_thread AND t.user_id = p_user;
        IF NOT FOUND THEN
            EXIT turn;
        END IF;
        RETURN QUERY SELECT 'thread', NULL::uuid, NULL::integer, thread.session_type, thread.domain,
                            extract(epoch FROM thread.crisis_at)::bigint::text,
                            CASE WHEN thread.domain_pinned THEN 'pinned' END, NULL::bytea;
        IF p_idempotency_key IS NOT NULL THEN
            RETURN QUERY SELECT 'replay', u.id, NULL::integer, NULL, NULL, NULL, a.id::text, NULL::bytea
                FROM messages u JOIN messages a ON a.reply_to = u.id AND a.role = 'assistant' AND a.thread_id = u.thread_id
                WHERE u.thread_id = p_thread AND u.idempotency_key = p_idempotency_key;
            IF FOUND THEN
                EXIT turn;
            END IF;
        END IF;
        admission := hearth_coaching_admit(p_tenant, p_user, p_thread, p_answer);
        RETURN QUERY SELECT 'admission', NULL::uuid, NULL::integer, NULL, NULL, NULL, admission::text, NULL::bytea;
        IF admission->>'outcome' <> 'admitted' THEN
            EXIT turn;
        END IF;
        INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, idempotency_key, completed_at,
                              crisis_kind)
        VALUES (p_question, p_tenant, p_thread, p_user, 'user', 'complete', p_question_sealed, p_idempotency_key, now(),
                p_crisis_kind)
        ON CONFLICT (tenant_id, thread_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING;
        IF NOT FOUND THEN
            -- A send with the same key committed while this one ran: that one is answering, this one is its replay.
            PERFORM hearth_stream_release(p_tenant, p_answer);
            RETURN QUERY SELECT 'replay', u.id, NULL::integer, NULL, NULL, NULL, a.id::text, NULL::bytea
                FROM messages u JOIN messages a ON a.reply_to = u.id AND a.role = 'assistant' AND a.thread_id = u.thread_id
                WHERE u.thread_id = p_thread AND u.idempotency_key = p_idempotency_key;
            EXIT turn;
        END IF;
        INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, reply_to, streaming_since,
                              crisis_kind)
        VALUES (p_answer, p_tenant, p_thread, p_user, 'assistant', 'streaming', p_answer_sealed, p_question, now(), p_crisis_kind);
        IF p_crisis_kind IS NOT NULL THEN
            UPDATE threads SET crisis_at = now() WHERE id = p_thread;
            INSERT INTO crisis_events (tenant_id, user_id, thread_id, message_id, kind, signals)
            VALUES (p_tenant, p_user, p_thread, p_question, p_crisis_kind, p_crisis_signals);
        END IF;
        IF p_crisis_kind IS NOT NULL OR thread.crisis_at > now() - make_interval(secs => p_support_seconds) THEN
            RETURN QUERY SELECT 'resources', NULL::uuid, NULL::integer, NULL, NULL, NULL, s.crisis_resources::text, NULL::bytea
                FROM tenant_safety_locales s WHERE s.locale = ANY (p_locales)
                ORDER BY array_position(p_locales, s.locale) LIMIT 1;
        END IF;
        RETURN QUERY SELECT 'stored', p_question, NULL::integer, NULL, NULL, NULL, p_answer::text, NULL::bytea;
    END turn;
    PERFORM hearth_tenant_second_admit(p_tenant);
END
$$;
REVOKE ALL ON FUNCTION hearth_turn_begin(uuid, uuid, uuid, uuid, text, uuid, bytea, uuid, bytea, text, text[], text[], bigint)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_begin(uuid, uuid, uuid, uuid, text, uuid, bytea, uuid, bytea, text, text[], text[], bigint)
    TO hearth_app;
