-- An answer the sweep finds abandoned frees its concurrent-stream slot at once (Coaching's `AbandonedAnswers`).
--
-- A turn's admission leases one of the person's concurrent streams under the answer's id (`stream_leases`,
-- Billing's, migration 0022), and the turn releases it when the answer is stored. A server that died mid-answer
-- never released it: the slot stayed taken until the lease expired, ten minutes after the send, though the sweep
-- marks the answer interrupted (and retryable) after five. And an expired lease was deleted only at its person's
-- next admission, so a person who never came back kept the row. Now the sweep releases the leases of the answers it
-- interrupts, and deletes every expired lease.

-- Billing's: the leases of `p_released` (answers no one is generating) and every expired one, in every tenant.
CREATE FUNCTION hearth_stream_leases_sweep(p_released uuid[]) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$ DELETE FROM stream_leases WHERE lease_id = ANY (p_released) OR expires_at <= now() $$;
REVOKE ALL ON FUNCTION hearth_stream_leases_sweep(uuid[]) FROM PUBLIC;

-- As in migration 0008, and the leases of the answers it interrupts released.
CREATE OR REPLACE FUNCTION hearth_interrupt_abandoned_answers(p_older_than_seconds bigint) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
DECLARE
    swept uuid[];
BEGIN
    WITH interrupted AS (
        UPDATE messages SET status = 'interrupted', completed_at = now(), streaming_since = NULL
        WHERE status = 'streaming' AND streaming_since < now() - make_interval(secs => p_older_than_seconds)
        RETURNING id
    )
    SELECT coalesce(array_agg(id), '{}') INTO swept FROM interrupted;
    PERFORM hearth_stream_leases_sweep(swept);
    RETURN cardinality(swept);
END
$$;
