-- A replayed send finds its answer within its thread (issue 3).
--
-- hearth_turn_begin answers a send whose Idempotency-Key was used before with the exchange that key stored: the
-- question by the key (messages_tenant_idempotency), then its answer by `reply_to`. `reply_to` has no index, and
-- the join did not say the answer is in the question's thread, so Postgres found it by reading every message of
-- the tenant: EXPLAIN over a tenant of 8,000 messages, 5.97 ms with 3,999 rows read and dropped, growing with the
-- tenant, inside the send's transaction. Said, the answer is looked up through messages_tenant_thread_seq among
-- its thread's messages only: 0.23 ms and 63 rows there. (An index on `reply_to` would make it constant, at the
-- cost of one more index entry for every message written.)

-- As in migration 0030, with `a.thread_id = u.thread_id` in both replay reads.
CREATE OR REPLACE FUNCTION hearth_turn_begin(
    p_tenant uuid, p_user uuid, p_thread uuid, p_session uuid, p_history bigint, p_idempotency_key text,
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
        -- The history before the question: read before it is inserted.
        RETURN QUERY SELECT * FROM hearth_turn_reading(p_user, p_thread, NULL, p_history);
        INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, idempotency_key, completed_at,
                              crisis_kind)
        VALUES (p_question, p_tenant, p_thread, p_user, 'user', 'complete', p_question_sealed, p_idempotency_key, now(),
                p_crisis_kind)
        ON CONFLICT (tenant_id, thread_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING;
        IF NOT FOUND THEN
            -- A send with the same key committed while this one read: that one is answering, this one is its replay.
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
