-- The chat turn's statements as functions: one round trip each instead of a transaction's five to nine
-- (BEGIN, tenant scope, the statements, COMMIT). See docs/decisions/0005-chat-turn-functions.md. They are
-- SECURITY INVOKER: each scopes its own implicit transaction to p_tenant exactly as Database.withTenant
-- does, and row-level security binds every statement in them. Coaching's TurnStore is their only caller.

-- When the generation now streaming into an answer began (NULL once it is finished): a retry starts a new
-- one, and an answer streaming for longer than any generation can last has lost its server.
ALTER TABLE messages ADD COLUMN streaming_since timestamptz;
UPDATE messages SET streaming_since = created_at WHERE status = 'streaming';

-- Everything a turn reads before the provider is called, as tagged rows in this order:
--   ('thread',   NULL, NULL,     session_type, …)                        none when the user has no such thread
--   ('key',      NULL, version,  NULL, …, wrapped_key)                   the user's wrapped data key
--   ('provider', NULL, position, kind, model, base_url, api_key_ref)     the tenant's providers, primary first
--   ('message',  id,   NULL,     role, …, content_ciphertext)            recent finished messages, oldest first
-- History is the newest p_history finished messages before p_before (a retried answer), or in the whole
-- thread when p_before is NULL. Read-only, so its transaction commits without a WAL flush.
CREATE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    RETURN QUERY SELECT 'thread', NULL::uuid, NULL::integer, t.session_type, NULL, NULL, NULL, NULL::bytea
        FROM threads t WHERE t.id = p_thread AND t.user_id = p_user;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT 'key', NULL::uuid, k.master_version, NULL, NULL, NULL, NULL, k.wrapped_key
        FROM user_keys k WHERE k.user_id = p_user;
    RETURN QUERY SELECT 'provider', NULL::uuid, p.position, p.kind, p.model, p.base_url, p.api_key_ref, NULL::bytea
        FROM tenant_llm_providers p ORDER BY p.position;
    RETURN QUERY SELECT 'message', recent.id, NULL::integer, recent.role, NULL, NULL, NULL, recent.content_ciphertext
        FROM (SELECT m.id, m.role, m.content_ciphertext, m.seq FROM messages m
              WHERE m.thread_id = p_thread AND m.status IN ('complete', 'interrupted')
                AND (p_before IS NULL OR m.seq < (SELECT b.seq FROM messages b WHERE b.id = p_before))
              ORDER BY m.seq DESC LIMIT p_history) recent
        ORDER BY recent.seq;
END
$$;

-- Commits the user's message and the placeholder its answer streams into (the question first, so it has the
-- lower seq), and marks the thread active. One row: outcome 'stored'; 'replay' with the exchange an earlier
-- send with the same idempotency key stored (nothing is inserted); 'no_thread'. A concurrent send with the
-- same key waits on the unique index until the first commits, so its exchange is visible to the lookup.
CREATE FUNCTION hearth_turn_store_exchange(
    p_tenant uuid, p_user uuid, p_thread uuid, p_idempotency_key text,
    p_question uuid, p_question_sealed bytea, p_answer uuid, p_answer_sealed bytea
) RETURNS TABLE (outcome text, question_id uuid, answer_id uuid)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    UPDATE threads SET updated_at = now() WHERE id = p_thread AND user_id = p_user;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_thread', NULL::uuid, NULL::uuid;
        RETURN;
    END IF;
    INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, idempotency_key, completed_at)
    VALUES (p_question, p_tenant, p_thread, p_user, 'user', 'complete', p_question_sealed, p_idempotency_key, now())
    ON CONFLICT (tenant_id, thread_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING;
    IF FOUND THEN
        INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, reply_to, streaming_since)
        VALUES (p_answer, p_tenant, p_thread, p_user, 'assistant', 'streaming', p_answer_sealed, p_question, now());
        RETURN QUERY SELECT 'stored', p_question, p_answer;
        RETURN;
    END IF;
    RETURN QUERY SELECT 'replay', u.id, a.id
        FROM messages u JOIN messages a ON a.reply_to = u.id AND a.role = 'assistant'
        WHERE u.thread_id = p_thread AND u.idempotency_key = p_idempotency_key;
END
$$;

-- Stores an answer's final state and its usage record in one transaction, priced from the llm_prices row in
-- effect today (cost rounded up to a whole micro-dollar; priced = false and cost 0 when the model has no
-- price). Returns the cost. Counts are bigint because that is what the server binds; the columns check them.
CREATE FUNCTION hearth_turn_finish(
    p_tenant uuid, p_user uuid, p_thread uuid, p_message uuid, p_sealed bytea, p_status text,
    p_provider text, p_model text, p_input_tokens bigint, p_output_tokens bigint, p_estimated boolean,
    p_ttft_ms bigint, p_total_ms bigint, p_outcome text
) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    price record;
    cost bigint := 0;
    priced boolean := false;
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    UPDATE messages SET content_ciphertext = p_sealed, status = p_status, provider = p_provider, model = p_model,
                        completed_at = now(), streaming_since = NULL
    WHERE id = p_message;
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
    RETURN cost;
END
$$;

REVOKE ALL ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION hearth_turn_store_exchange(uuid, uuid, uuid, text, uuid, bytea, uuid, bytea) FROM PUBLIC;
REVOKE ALL ON FUNCTION hearth_turn_finish(uuid, uuid, uuid, uuid, bytea, text, text, text, bigint, bigint, boolean, bigint, bigint, text)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint) TO hearth_app;
GRANT EXECUTE ON FUNCTION hearth_turn_store_exchange(uuid, uuid, uuid, text, uuid, bytea, uuid, bytea) TO hearth_app;
GRANT EXECUTE ON FUNCTION hearth_turn_finish(uuid, uuid, uuid, uuid, bytea, text, text, text, bigint, bigint, boolean, bigint, bigint, text)
    TO hearth_app;
