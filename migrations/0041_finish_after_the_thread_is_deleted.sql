-- A thread deleted while its answer streams no longer loses the provider call's usage record (issue 3).
--
-- hearth_turn_finish noted the turn in Memory's memory_threads, whose row references the thread. With the thread
-- deleted mid-answer, that insert failed its foreign key and took the whole transaction with it: the usage record
-- of a call the provider had answered (and will bill) was lost, and the stream's lease stayed until it expired,
-- holding one of the person's concurrent-answer slots for ten minutes. The message updates already found nothing
-- and were harmless, and usage records reference only the user. Now a thread that is gone gets no memory note;
-- the record and the release are written as before.
--
-- As in migration 0040, with the memory note only for a thread still there.
CREATE OR REPLACE FUNCTION hearth_turn_finish(p_tenant uuid, p_user uuid, p_thread uuid, p_message uuid, p_sealed bytea, p_status text, p_provider text, p_model text, p_input_tokens bigint, p_output_tokens bigint, p_estimated boolean, p_ttft_ms bigint, p_total_ms bigint, p_outcome text, p_domain text)
 RETURNS bigint
 LANGUAGE plpgsql
AS $$
DECLARE
    price record;
    cost bigint := 0;
    priced boolean := false;
    question uuid;
    thread_kept boolean;
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
    thread_kept := FOUND;
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
    VALUES (hearth_uuid_v7(), p_tenant, p_user, p_thread, p_message, p_provider, p_model, p_input_tokens, p_output_tokens,
            p_estimated, cost, priced, p_ttft_ms, p_total_ms, p_outcome);
    IF thread_kept THEN
        PERFORM hearth_memory_note_turn(p_tenant, p_user, p_thread);
    END IF;
    PERFORM hearth_stream_release(p_tenant, p_message);
    RETURN cost;
END
$$;
