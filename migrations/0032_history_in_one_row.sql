-- A turn's recent messages come back as one row instead of one a message (issue 3).
--
-- Every row a statement returns costs the server its own work on both sides: in Hearth, PostgresNIO decodes and
-- buffers each row, hands it through its async sequence, and each column is decoded on its own (the rows of a
-- send's statement were about 3% of Hearth's CPU in a back-to-back profile, docs/performance-notes.md). A send's
-- statement returned some eighteen rows, eleven of them messages. Now the messages are one `history` row:
--   number  how many messages;
--   name    their roles, comma-separated, oldest first;
--   sealed  each message oldest first as its id (16 bytes), its ciphertext's length (4 bytes, big-endian) and its
--           ciphertext (read by Sources/Coaching/Stores/HistoryFrames.swift).
-- With no messages the row still comes, its count 0 and its other columns NULL.

-- As in migration 0031, the recent messages aggregated.
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
        SELECT 'history', NULL::uuid, count(*)::integer, string_agg(recent.role, ',' ORDER BY recent.seq), NULL, NULL, NULL,
               string_agg(uuid_send(recent.id) || int4send(octet_length(recent.content_ciphertext)) || recent.content_ciphertext,
                          ''::bytea ORDER BY recent.seq)
        FROM (SELECT m.id, m.role, m.content_ciphertext, m.seq FROM messages m
              WHERE m.thread_id = p_thread AND m.status IN ('complete', 'interrupted')
                AND (p_before IS NULL OR m.seq < (SELECT b.seq FROM messages b WHERE b.id = p_before))
              ORDER BY m.seq DESC LIMIT p_history) recent;
END
$$;
