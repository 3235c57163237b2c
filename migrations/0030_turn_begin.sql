-- A send commits its exchange in the statement that reads its context: one round trip before the provider
-- instead of two (issue 3, decision 0018).
--
-- A send made two round trips before the provider was called: hearth_turn_context (session, admission, context)
-- and, after the crisis check and the router had run on what it read, hearth_turn_store_exchange (the question,
-- the answer's placeholder, the crisis record). Each cost its fixed round trip, a statement's planning and a
-- commit. Now the crisis check runs before the statement (it reads the message alone), the user's data key
-- comes from the server's memory of recently used keys (hearth_user_key on a miss), and hearth_turn_begin does
-- both in one transaction, committed durably: the person's message is on disk before any provider call, as
-- before. The router needs the thread's domain and recent messages, which this statement reads, so the domain it
-- chooses is stored with the answer by hearth_turn_finish, which now also moves the thread's activity time.
--
-- hearth_turn_context stays for the turns that store nothing before the provider (a retry, the prompt preview),
-- without the session check only sends made in it; what both read is one function, hearth_turn_reading.
-- hearth_turn_store_exchange is gone.

-- The user's wrapped data key in one statement (the chat turn's miss path; Accounts owns user_keys).
CREATE FUNCTION hearth_user_key(p_tenant uuid, p_user uuid) RETURNS TABLE (master_version integer, wrapped_key bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    RETURN QUERY SELECT k.master_version, k.wrapped_key FROM user_keys k WHERE k.user_id = p_user;
END
$$;
REVOKE ALL ON FUNCTION hearth_user_key(uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_user_key(uuid, uuid) TO hearth_app;

-- What a turn reads for its prompt once the thread is known to be the person's and the person admitted: the
-- persona's published copy while it is live, the sealed context profile, Memory's rows, the tenant's providers,
-- the domain catalog's stamp and the recent finished messages (before p_before, when given), oldest first.
-- Tagged rows in the columns of the two functions below; runs in their tenant-scoped transaction.
CREATE FUNCTION hearth_turn_reading(p_user uuid, p_thread uuid, p_before uuid, p_history bigint)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
    -- A suspended persona's threads coach without it.
    RETURN QUERY SELECT 'persona', p.id, p.published_revision, NULL, NULL, NULL, p.published::text, NULL::bytea
        FROM threads t JOIN personas p ON p.id = t.persona_id
        WHERE t.id = p_thread AND p.published IS NOT NULL AND p.status <> 'suspended';
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
REVOKE ALL ON FUNCTION hearth_turn_reading(uuid, uuid, uuid, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_reading(uuid, uuid, uuid, bigint) TO hearth_app;

-- A retry's or the preview's context: the thread (none: no rows), the admission when a lease is given (a retry;
-- refused, nothing more), the wrapped data key, then hearth_turn_reading. The session was checked by the
-- middleware. Commits without waiting for its WAL flush (migration 0028): it writes only counters, leases and
-- trial bookkeeping, and the answer's durable commit follows.
DROP FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid, uuid);
CREATE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint, p_lease uuid)
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
    RETURN QUERY SELECT * FROM hearth_turn_reading(p_user, p_thread, p_before, p_history);
END
$$;
REVOKE ALL ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid) TO hearth_app;

-- A send: the session check's `gate` row first (decision 0015), then rows as hearth_turn_context's without `key`
-- (the caller sealed the question with it), then the exchange's outcome:
--   `stored`    id: the question, reference: the answer's id; the exchange is committed.
--   `replay`    id: the question, reference: the answer's id; an earlier send with this idempotency key stored
--               them, nothing else was read or written (no admission, no lease).
--   `resources` reference: the tenant's crisis resources for the first of p_locales it has, sent when the
--               thread is in crisis support (p_crisis_kind given, or its last crisis within p_support_seconds).
-- No `stored`/`replay` row: the thread is not the person's (no `thread` row), the admission refused (its row
-- says why), or the key's exchange is not visible yet (a conflict, answered as retryable).
CREATE FUNCTION hearth_turn_begin(
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
                FROM messages u JOIN messages a ON a.reply_to = u.id AND a.role = 'assistant'
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
                FROM messages u JOIN messages a ON a.reply_to = u.id AND a.role = 'assistant'
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
REVOKE ALL ON FUNCTION hearth_turn_begin(uuid, uuid, uuid, uuid, bigint, text, uuid, bytea, uuid, bytea, text, text[], text[], bigint)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_begin(uuid, uuid, uuid, uuid, bigint, text, uuid, bytea, uuid, bytea, text, text[], text[], bigint)
    TO hearth_app;

DROP FUNCTION hearth_turn_store_exchange(uuid, uuid, uuid, text, uuid, bytea, uuid, bytea, text, text, text[], text[]);

-- As in migration 0022, and the exchange's routed domain (NULL: a retry, which keeps the first answer's) stored
-- on both of its messages and made the thread's, whose activity time moves here now.
DROP FUNCTION hearth_turn_finish(uuid, uuid, uuid, uuid, bytea, text, text, text, bigint, bigint, boolean, bigint, bigint, text);
CREATE FUNCTION hearth_turn_finish(
    p_tenant uuid, p_user uuid, p_thread uuid, p_message uuid, p_sealed bytea, p_status text,
    p_provider text, p_model text, p_input_tokens bigint, p_output_tokens bigint, p_estimated boolean,
    p_ttft_ms bigint, p_total_ms bigint, p_outcome text, p_domain text
) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    price record;
    cost bigint := 0;
    priced boolean := false;
    question uuid;
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    UPDATE messages SET content_ciphertext = p_sealed, status = p_status, provider = p_provider, model = p_model,
                        completed_at = now(), streaming_since = NULL, domain = coalesce(p_domain, domain)
    WHERE id = p_message
    RETURNING reply_to INTO question;
    IF p_domain IS NOT NULL THEN
        UPDATE messages SET domain = p_domain WHERE id = question;
    END IF;
    UPDATE threads SET updated_at = now(), domain = coalesce(p_domain, domain) WHERE id = p_thread;
    SELECT input_micros_per_million, output_micros_per_million INTO price FROM llm_prices
    WHERE provider = p_provider AND model = p_model AND effective_from <= current_date
    ORDER BY effective_from DESC LIMIT 1;
    IF FOUND THEN
        cost := (p_input_tokens * price.input_micros_per_million
                 + p_output_tokens * price.output_micros_per_million + 999999) / 1000000;
        priced := true;
    END IF;
    INSERT INTO usage_records (id, tenant_id, user_id, thread_id, message_id, provider, model, input_tokens, output_tokens,
                               tokens_estimated, cost_micros, priced, ttft_ms, total_ms, outcome)
    VALUES (gen_random_uuid(), p_tenant, p_user, p_thread, p_message, p_provider, p_model, p_input_tokens, p_output_tokens,
            p_estimated, cost, priced, p_ttft_ms, p_total_ms, p_outcome);
    PERFORM hearth_memory_note_turn(p_tenant, p_user, p_thread);
    PERFORM hearth_stream_release(p_tenant, p_message);
    RETURN cost;
END
$$;
REVOKE ALL ON FUNCTION hearth_turn_finish(uuid, uuid, uuid, uuid, bytea, text, text, text, bigint, bigint, boolean, bigint, bigint, text, text)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_finish(uuid, uuid, uuid, uuid, bytea, text, text, text, bigint, bigint, boolean, bigint, bigint, text, text)
    TO hearth_app;
