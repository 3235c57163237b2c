-- Safety and domains on the chat turn (docs/safety.md, docs/domains.md). The turn classifies each user
-- message in process before the provider is called; these functions record what it found in the round trips
-- the turn already makes (decision 0005): no new round trip.

-- The domain each message was answered in (the router's choice, or the thread's when it was unsure), and the
-- crisis kind of a message that showed one and of the answer to it. Memory leaves crisis exchanges out.
ALTER TABLE messages ADD COLUMN domain text;
ALTER TABLE messages ADD COLUMN crisis_kind text
    CHECK (crisis_kind IN ('suicidal', 'self_harm', 'abuse', 'harm_to_others', 'third_party'));
-- When the thread last showed a crisis: for a while afterwards it is answered with crisis-support instructions.
ALTER TABLE threads ADD COLUMN crisis_at timestamptz;
-- The person chose the thread's domain when opening it: the router does not move it.
ALTER TABLE threads ADD COLUMN domain_pinned boolean NOT NULL DEFAULT false;
UPDATE threads SET domain_pinned = true WHERE domain IS NOT NULL;

-- One row per user message that showed a crisis: what kind, when, and the names of the signals behind it.
-- Never the text. Kept when the thread is deleted (operators count them), gone with the user.
CREATE TABLE crisis_events (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id   uuid NOT NULL,
    user_id     uuid NOT NULL,
    thread_id   uuid NOT NULL,
    message_id  uuid NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('suicidal', 'self_harm', 'abuse', 'harm_to_others', 'third_party')),
    signals     text[] NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX crisis_events_tenant_created ON crisis_events (tenant_id, created_at);
CREATE INDEX crisis_events_tenant_user ON crisis_events (tenant_id, user_id);
SELECT hearth_isolate_tenant_table('crisis_events');

-- A tenant's own crisis resources and disclaimer per locale ('en-GB', 'en', or 'default'); without a row,
-- Hearth's built-in lists apply (Safety's CrisisResources).
CREATE TABLE tenant_safety_locales (
    tenant_id         uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    locale            text NOT NULL CHECK (locale ~ '^([a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}|default)$'),
    crisis_resources  jsonb NOT NULL CHECK (jsonb_typeof(crisis_resources) = 'array'),
    disclaimer_short  text CHECK (length(disclaimer_short) BETWEEN 1 AND 200),
    disclaimer_full   text CHECK (length(disclaimer_full) BETWEEN 1 AND 4000),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, locale)
);
SELECT hearth_isolate_tenant_table('tenant_safety_locales');

-- The turn's context gains, on the thread row, when the thread last showed a crisis (url: Unix seconds) and
-- whether its domain is pinned (reference: 'pinned'), and a 'domains' row whose reference is the tenant's domain catalog stamp (the newest domain_versions id,
-- NULL when it has none yet).
CREATE OR REPLACE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint)
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

-- The exchange is stored with its domain (which becomes the thread's) and, when the message showed a crisis,
-- its kind, a crisis_events row and the thread's crisis_at. When the thread is in crisis support the turn passes
-- p_locales, and the outcome row carries the tenant's crisis resources for the first of them it has (NULL: use
-- the built-in lists).
DROP FUNCTION hearth_turn_store_exchange(uuid, uuid, uuid, text, uuid, bytea, uuid, bytea);
CREATE FUNCTION hearth_turn_store_exchange(
    p_tenant uuid, p_user uuid, p_thread uuid, p_idempotency_key text,
    p_question uuid, p_question_sealed bytea, p_answer uuid, p_answer_sealed bytea,
    p_domain text, p_crisis_kind text, p_crisis_signals text[], p_locales text[]
) RETURNS TABLE (outcome text, question_id uuid, answer_id uuid, resources jsonb)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    UPDATE threads SET updated_at = now(), domain = coalesce(p_domain, domain),
                       crisis_at = CASE WHEN p_crisis_kind IS NULL THEN crisis_at ELSE now() END
    WHERE id = p_thread AND user_id = p_user;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_thread', NULL::uuid, NULL::uuid, NULL::jsonb;
        RETURN;
    END IF;
    INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, idempotency_key, completed_at,
                          domain, crisis_kind)
    VALUES (p_question, p_tenant, p_thread, p_user, 'user', 'complete', p_question_sealed, p_idempotency_key, now(),
            p_domain, p_crisis_kind)
    ON CONFLICT (tenant_id, thread_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING;
    IF FOUND THEN
        INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, reply_to, streaming_since,
                              domain, crisis_kind)
        VALUES (p_answer, p_tenant, p_thread, p_user, 'assistant', 'streaming', p_answer_sealed, p_question, now(),
                p_domain, p_crisis_kind);
        IF p_crisis_kind IS NOT NULL THEN
            INSERT INTO crisis_events (tenant_id, user_id, thread_id, message_id, kind, signals)
            VALUES (p_tenant, p_user, p_thread, p_question, p_crisis_kind, p_crisis_signals);
        END IF;
        RETURN QUERY SELECT 'stored', p_question, p_answer,
            (SELECT s.crisis_resources FROM tenant_safety_locales s WHERE s.locale = ANY (p_locales)
             ORDER BY array_position(p_locales, s.locale) LIMIT 1);
        RETURN;
    END IF;
    RETURN QUERY SELECT 'replay', u.id, a.id, NULL::jsonb
        FROM messages u JOIN messages a ON a.reply_to = u.id AND a.role = 'assistant'
        WHERE u.thread_id = p_thread AND u.idempotency_key = p_idempotency_key;
END
$$;
REVOKE ALL ON FUNCTION hearth_turn_store_exchange(uuid, uuid, uuid, text, uuid, bytea, uuid, bytea, text, text, text[], text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_store_exchange(uuid, uuid, uuid, text, uuid, bytea, uuid, bytea, text, text, text[], text[])
    TO hearth_app;
