-- A long session's in-session summary queued when its unsummarized messages reach each multiple of 16, not tried
-- again on every turn after the first (issue 3).
--
-- hearth_memory_note_turn (0012) inserted the summary job on every turn once more than 15 messages were
-- unsummarized, and the jobs table's pending-dedupe index turned all but the first into nothing. While that job
-- waits (a busy runner, or retries after a failing model) every turn still paid for the insert's index probe and
-- its jsonb: 80 µs of the turn's 2.4 ms in Postgres (pg_stat_statements, docs/performance-notes.md). Now the insert
-- is tried when the count reaches 16, 32, 48… (each turn adds 2, so the window of 2 cannot be stepped over, and a
-- summary that leaves an odd remainder still meets one). A job that ended without summarizing (dead after its
-- attempts) is queued again 8 turns later rather than on the next turn.
CREATE OR REPLACE FUNCTION hearth_memory_note_turn(p_tenant uuid, p_user uuid, p_thread uuid) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    pending integer;
BEGIN
    INSERT INTO memory_threads (tenant_id, thread_id, user_id, unsummarized) VALUES (p_tenant, p_thread, p_user, 2)
    ON CONFLICT (thread_id) DO UPDATE
        SET open = true, last_activity_at = now(), unsummarized = memory_threads.unsummarized + 2
    RETURNING unsummarized INTO pending;
    IF pending >= 16 AND pending % 16 < 2 THEN
        INSERT INTO jobs (kind, tenant_id, payload, dedupe_key)
        VALUES ('memory.summarize', p_tenant,
                jsonb_build_object('userID', p_user, 'threadID', p_thread, 'reason', 'in_session'),
                'partial:' || p_thread)
        ON CONFLICT DO NOTHING;
    END IF;
END
$$;
