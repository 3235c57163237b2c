-- A turn's reading in one statement with one cached plan (issue 3, decision 0019).
--
-- hearth_turn_reading (migration 0030) ran six statements of its own and called hearth_memory_context, a PL/pgSQL
-- function of four more: eleven executor start-ups, a nested function's result copied through a tuplestore, and
-- for each statement its own plan-cache look-up, before the send's rows went back. Now Memory's part is a single
-- SELECT in LANGUAGE sql, which Postgres inlines into the query that calls it, and the reading is one UNION ALL:
-- one statement. (pgbench, one client through a send's statement and its answer's: the send's statement
-- 0.92–0.98 → 0.80–0.84 ms, docs/performance-notes.md.)
--
-- One statement of nine branches costs more to plan than it does to run, and left to itself the plan cache kept
-- planning it afresh on every call (it was then slower than the eleven statements: 1.45 ms). The function
-- therefore always uses its generic plan, planned once per connection; every branch is an index look-up by the
-- user or the thread, whatever their values. Rows keep the order the callers read them in (each branch sorts its
-- own rows, and branches are returned in turn), so the plan must not be a parallel one, which interleaves
-- branches: the function also turns parallel workers off for itself.

-- As in migration 0012, as one SELECT (inlined where it is called). Memory owns these tables and this reading.
CREATE OR REPLACE FUNCTION hearth_memory_context(p_user uuid, p_thread uuid)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE sql STABLE
    AS $$
    WITH summarized AS (
        SELECT coalesce((SELECT mt.summarized_seq FROM memory_threads mt WHERE mt.thread_id = p_thread), 0) AS seq
    )
    SELECT 'session', NULL::uuid, NULL::integer, summarized.seq::text, NULL, NULL, NULL, NULL::bytea FROM summarized
    UNION ALL
    (SELECT 'fact', f.id, f.mention_count, f.category, f.last_session_key, array_to_string(f.domains, ','),
            (SELECT string_agg(i.kind, ',') FROM memory_insights i WHERE i.tenant_id = f.tenant_id AND i.fact_id = f.id),
            f.fact_ciphertext
     FROM memory_facts f WHERE f.user_id = p_user AND f.active
     ORDER BY f.confidence DESC, f.last_mentioned_at DESC LIMIT 40)
    UNION ALL
    (SELECT 'summary', s.id, NULL::integer, s.kind, extract(epoch FROM s.session_started_at)::bigint::text, s.domain, NULL,
            s.summary_ciphertext
     FROM memory_summaries s
     WHERE s.user_id = p_user AND s.archived_at IS NULL AND s.kind = 'session'
     ORDER BY s.session_ended_at DESC LIMIT 5)
    UNION ALL
    (SELECT 'summary', s.id, NULL::integer, s.kind, extract(epoch FROM s.session_started_at)::bigint::text, s.domain, NULL,
            s.summary_ciphertext
     FROM memory_summaries s, summarized
     WHERE s.thread_id = p_thread AND s.kind = 'partial' AND s.from_seq > summarized.seq
     ORDER BY s.through_seq)
$$;

-- As in migration 0030 (the same rows in the same order), as one statement.
CREATE OR REPLACE FUNCTION hearth_turn_reading(p_user uuid, p_thread uuid, p_before uuid, p_history bigint)
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
        (SELECT 'message', recent.id, NULL::integer, recent.role, NULL, NULL, NULL, recent.content_ciphertext
         FROM (SELECT m.id, m.role, m.content_ciphertext, m.seq FROM messages m
               WHERE m.thread_id = p_thread AND m.status IN ('complete', 'interrupted')
                 AND (p_before IS NULL OR m.seq < (SELECT b.seq FROM messages b WHERE b.id = p_before))
               ORDER BY m.seq DESC LIMIT p_history) recent
         ORDER BY recent.seq);
END
$$;
