-- Answers whose server died mid-generation stay 'streaming' for ever; Coaching's abandoned-answer job (every
-- minute, see AbandonedAnswers.swift) marks those older than any generation can last as 'interrupted', so
-- apps show them as retryable. SECURITY DEFINER so that one statement covers every tenant; it changes
-- nothing but the status of such rows and answers only how many.
CREATE INDEX messages_streaming ON messages (tenant_id, streaming_since) WHERE status = 'streaming';

CREATE FUNCTION hearth_interrupt_abandoned_answers(p_older_than_seconds bigint) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        WITH swept AS (
            UPDATE messages SET status = 'interrupted', completed_at = now(), streaming_since = NULL
            WHERE status = 'streaming' AND streaming_since < now() - make_interval(secs => p_older_than_seconds)
            RETURNING 1
        )
        SELECT count(*) FROM swept
    $$;

REVOKE ALL ON FUNCTION hearth_interrupt_abandoned_answers(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_interrupt_abandoned_answers(bigint) TO hearth_app;
