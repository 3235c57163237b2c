-- Memory's tiers 2 and 3 (the Conversation Memory Architecture document): session summaries, long-term facts,
-- the insights drawn from them, and each thread's progress through summarization. Memory's stores own these
-- tables. Everything a person said or was told is sealed with their data key; the clear columns are ids,
-- counts, times, categories and coaching-domain names.

-- A thread may hold several sessions: a session ends when the user ends it, asks for a summary, or is idle
-- for 30 minutes. One row per thread Memory has seen a turn in.
CREATE TABLE memory_threads (
    tenant_id          uuid NOT NULL,
    thread_id          uuid PRIMARY KEY,
    user_id            uuid NOT NULL,
    -- messages with seq <= summarized_seq belong to sessions that have their summary; the open session starts after
    summarized_seq     bigint NOT NULL DEFAULT 0,
    -- in the open session, messages with seq <= partial_seq are covered by in-session summaries
    partial_seq        bigint NOT NULL DEFAULT 0,
    -- true while the thread has turns no session summary covers yet
    open               boolean NOT NULL DEFAULT true,
    last_activity_at   timestamptz NOT NULL DEFAULT now(),
    -- messages in the open session not yet covered by an in-session summary (the > 15 trigger)
    unsummarized       integer NOT NULL DEFAULT 0,
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_threads_idle ON memory_threads (tenant_id, last_activity_at) WHERE open;
SELECT hearth_isolate_tenant_table('memory_threads');

-- Tier 2. kind 'session' covers a whole session; 'partial' the older part of a long open session (replaced
-- by the session's summary when it ends). session_key names the session: '<thread id>:<summarized_seq before it>'.
CREATE TABLE memory_summaries (
    id                 uuid PRIMARY KEY,
    tenant_id          uuid NOT NULL,
    user_id            uuid NOT NULL,
    thread_id          uuid NOT NULL,
    kind               text NOT NULL CHECK (kind IN ('session', 'partial')),
    session_key        text NOT NULL,
    from_seq           bigint NOT NULL,
    through_seq        bigint NOT NULL CHECK (through_seq >= from_seq),
    domain             text,
    -- JSON: topics, emotional arc, key insight, follow-ups, the user's words, the summary text
    summary_ciphertext bytea NOT NULL,
    token_count        integer NOT NULL,
    session_started_at timestamptz NOT NULL,
    session_ended_at   timestamptz NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    -- set 90 days after the session: an archived summary is no longer in prompts but stays the user's to see
    archived_at        timestamptz,
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_summaries_user_recent ON memory_summaries (tenant_id, user_id, session_ended_at DESC)
    WHERE archived_at IS NULL AND kind = 'session';
CREATE INDEX memory_summaries_thread ON memory_summaries (tenant_id, thread_id, through_seq);
CREATE INDEX memory_summaries_archivable ON memory_summaries (tenant_id, session_ended_at) WHERE archived_at IS NULL;
SELECT hearth_isolate_tenant_table('memory_summaries');

-- Tier 3. A contradicted fact is superseded, not overwritten: it keeps its row with valid_until and
-- superseded_by and leaves the prompt (active = false). mention_count counts sessions, each once
-- (last_session_key is the last one counted).
CREATE TABLE memory_facts (
    id                 uuid PRIMARY KEY,
    tenant_id          uuid NOT NULL,
    user_id            uuid NOT NULL,
    category           text NOT NULL
                       CHECK (category IN ('identity', 'preference', 'theme', 'event', 'strategy', 'trigger', 'goal')),
    -- JSON: the fact's text and, for recurring themes, the theme it names
    fact_ciphertext    bytea NOT NULL,
    confidence         real NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    mention_count      integer NOT NULL DEFAULT 1 CHECK (mention_count >= 1),
    source_thread_ids  uuid[] NOT NULL DEFAULT '{}',
    last_session_key   text,
    domains            text[] NOT NULL DEFAULT '{}',
    -- 'extracted' from conversations, or 'user' (written or edited by the person)
    origin             text NOT NULL CHECK (origin IN ('extracted', 'user')),
    active             boolean NOT NULL DEFAULT true,
    first_mentioned_at timestamptz NOT NULL DEFAULT now(),
    last_mentioned_at  timestamptz NOT NULL DEFAULT now(),
    valid_from         timestamptz NOT NULL DEFAULT now(),
    valid_until        timestamptz,
    superseded_by      uuid REFERENCES memory_facts (id) ON DELETE SET NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_facts_user_active ON memory_facts (tenant_id, user_id, confidence DESC) WHERE active;
CREATE INDEX memory_facts_user_category ON memory_facts (tenant_id, user_id, category, created_at);
SELECT hearth_isolate_tenant_table('memory_facts');

-- Patterns surfaced to the user: one of each kind per fact, ever (FR8, FR9).
CREATE TABLE memory_insights (
    id                 uuid PRIMARY KEY,
    tenant_id          uuid NOT NULL,
    user_id            uuid NOT NULL,
    fact_id            uuid NOT NULL REFERENCES memory_facts (id) ON DELETE CASCADE,
    kind               text NOT NULL CHECK (kind IN ('pattern', 'cross_domain')),
    thread_id          uuid,
    message_id         uuid,
    occurrences        integer NOT NULL,
    domains            text[] NOT NULL DEFAULT '{}',
    text_ciphertext    bytea NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, fact_id, kind),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_insights_user ON memory_insights (tenant_id, user_id, created_at DESC);
SELECT hearth_isolate_tenant_table('memory_insights');

-- "Forget everything" is two steps: a request, then a confirmation after a cool-down (one pending per user).
CREATE TABLE memory_forget_requests (
    tenant_id          uuid NOT NULL,
    user_id            uuid PRIMARY KEY,
    token_hash         bytea NOT NULL,
    confirmable_at     timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
SELECT hearth_isolate_tenant_table('memory_forget_requests');

-- The coaching domain a thread is in (the domains issue routes per message; until then the app chooses).
ALTER TABLE threads ADD COLUMN domain text CHECK (domain ~ '^[a-z][a-z0-9_-]{0,31}$');

-- Called by the chat turn's finish (same transaction, no extra round trip): the thread's session is open and
-- active now. When the open session has passed 15 messages not covered by an in-session summary, enqueues
-- the summary job (deduplicated while one is pending). Returns nothing; never fails the turn on its own.
CREATE FUNCTION hearth_memory_note_turn(p_tenant uuid, p_user uuid, p_thread uuid) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    pending integer;
BEGIN
    INSERT INTO memory_threads (tenant_id, thread_id, user_id, unsummarized) VALUES (p_tenant, p_thread, p_user, 2)
    ON CONFLICT (thread_id) DO UPDATE
        SET open = true, last_activity_at = now(), unsummarized = memory_threads.unsummarized + 2
    RETURNING unsummarized INTO pending;
    IF pending > 15 THEN
        INSERT INTO jobs (kind, tenant_id, payload, dedupe_key)
        VALUES ('memory.summarize', p_tenant,
                jsonb_build_object('userID', p_user, 'threadID', p_thread, 'reason', 'in_session'),
                'partial:' || p_thread)
        ON CONFLICT DO NOTHING;
    END IF;
END
$$;

-- The memory a turn reads, as rows of hearth_turn_context's shape (kind, id, number, name, model, url,
-- reference, sealed):
--   'session'  name = the thread's summarized_seq (the open session's key is '<thread>:<it>')
--   'fact'     id, number = mention_count, name = category, model = last_session_key,
--              url = domains joined by ',', reference = kinds of insight already drawn from it; by confidence
--   'summary'  id, name = kind, model = session start (Unix seconds), url = domain, sealed: the user's 5 newest session summaries in prompts, then the open
--              session's in-session summaries of this thread
CREATE FUNCTION hearth_memory_context(p_user uuid, p_thread uuid)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql STABLE
    AS $$
#variable_conflict use_column
DECLARE
    summarized bigint;
BEGIN
    SELECT mt.summarized_seq INTO summarized FROM memory_threads mt WHERE mt.thread_id = p_thread;
    summarized := coalesce(summarized, 0);
    RETURN QUERY SELECT 'session', NULL::uuid, NULL::integer, summarized::text, NULL, NULL, NULL, NULL::bytea;
    RETURN QUERY SELECT 'fact', f.id, f.mention_count, f.category, f.last_session_key, array_to_string(f.domains, ','),
                        (SELECT string_agg(i.kind, ',') FROM memory_insights i WHERE i.tenant_id = f.tenant_id AND i.fact_id = f.id), f.fact_ciphertext
        FROM memory_facts f WHERE f.user_id = p_user AND f.active
        ORDER BY f.confidence DESC, f.last_mentioned_at DESC LIMIT 40;
    RETURN QUERY SELECT 'summary', s.id, NULL::integer, s.kind, extract(epoch FROM s.session_started_at)::bigint::text, s.domain,
                        NULL, s.summary_ciphertext
        FROM memory_summaries s
        WHERE s.user_id = p_user AND s.archived_at IS NULL AND s.kind = 'session'
        ORDER BY s.session_ended_at DESC LIMIT 5;
    RETURN QUERY SELECT 'summary', s.id, NULL::integer, s.kind, extract(epoch FROM s.session_started_at)::bigint::text, s.domain,
                        NULL, s.summary_ciphertext
        FROM memory_summaries s
        WHERE s.thread_id = p_thread AND s.kind = 'partial' AND s.from_seq > summarized
        ORDER BY s.through_seq;
END
$$;

-- Sessions idle for p_idle_seconds get their summary job (every tenant in one statement, hence SECURITY
-- DEFINER; it reads memory_threads and writes jobs only). Returns how many were enqueued.
CREATE FUNCTION hearth_memory_enqueue_idle(p_idle_seconds bigint) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        WITH due AS (
            SELECT mt.tenant_id, mt.user_id, mt.thread_id FROM tenants t
            CROSS JOIN LATERAL (
                SELECT m.tenant_id, m.user_id, m.thread_id FROM memory_threads m
                WHERE m.tenant_id = t.id AND m.open AND m.last_activity_at < now() - make_interval(secs => p_idle_seconds)
                LIMIT 1000
            ) mt
        ), queued AS (
            INSERT INTO jobs (kind, tenant_id, payload, dedupe_key)
            SELECT 'memory.summarize', d.tenant_id,
                   jsonb_build_object('userID', d.user_id, 'threadID', d.thread_id, 'reason', 'idle'),
                   'session:' || d.thread_id
            FROM due d
            ON CONFLICT DO NOTHING
            RETURNING 1
        )
        SELECT count(*) FROM queued
    $$;
REVOKE ALL ON FUNCTION hearth_memory_enqueue_idle(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_memory_enqueue_idle(bigint) TO hearth_app;

-- Summaries whose session ended more than p_days ago leave the prompts (all tenants; SECURITY DEFINER).
CREATE FUNCTION hearth_memory_archive_summaries(p_days bigint) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        WITH archived AS (
            UPDATE memory_summaries SET archived_at = now()
            WHERE archived_at IS NULL AND session_ended_at < now() - make_interval(days => p_days::integer)
            RETURNING 1
        )
        SELECT count(*) FROM archived
    $$;
REVOKE ALL ON FUNCTION hearth_memory_archive_summaries(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_memory_archive_summaries(bigint) TO hearth_app;

-- The chat turn reads memory with its context (one round trip still) and notes the turn when it finishes.
-- The thread row now carries the thread's domain in its model column.
CREATE OR REPLACE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    RETURN QUERY SELECT 'thread', NULL::uuid, NULL::integer, t.session_type, t.domain, NULL, NULL, NULL::bytea
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
    RETURN QUERY SELECT 'message', recent.id, NULL::integer, recent.role, NULL, NULL, NULL, recent.content_ciphertext
        FROM (SELECT m.id, m.role, m.content_ciphertext, m.seq FROM messages m
              WHERE m.thread_id = p_thread AND m.status IN ('complete', 'interrupted')
                AND (p_before IS NULL OR m.seq < (SELECT b.seq FROM messages b WHERE b.id = p_before))
              ORDER BY m.seq DESC LIMIT p_history) recent
        ORDER BY recent.seq;
END
$$;

CREATE OR REPLACE FUNCTION hearth_turn_finish(
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
    PERFORM hearth_memory_note_turn(p_tenant, p_user, p_thread);
    RETURN cost;
END
$$;
