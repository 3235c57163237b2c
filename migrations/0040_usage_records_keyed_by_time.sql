-- Usage records keyed by time-ordered ids (issue 3): hearth_turn_finish inserts one a turn.
--
-- As a send's messages (RandomBytes.timeOrderedUUID), a usage record's id is now a version 7 UUID: the millisecond,
-- then random bits. gen_random_uuid() put every insert on a random page of usage_records_pkey, and after each
-- checkpoint the first change to a page writes the whole page to the WAL: with 160,000 records, those images of
-- the key were about a fifth of the WAL (docs/performance.md). Now the inserts land at the key's right edge.
-- Postgres 15 has no uuidv7(): hearth_uuid_v7 writes the time over a random UUID's first six bytes and sets its
-- version bits from 4 (0100) to 7 (0111).
CREATE FUNCTION hearth_uuid_v7() RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL SAFE
    AS $$
        SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                      PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
                      52, 1), 53, 1), 'hex')::uuid
    $$;

-- As in migration 0030, with the record's id from hearth_uuid_v7().
CREATE OR REPLACE FUNCTION hearth_turn_finish(p_tenant uuid, p_user uuid, p_thread uuid, p_message uuid, p_sealed bytea, p_status text, p_provider text, p_model text, p_input_tokens bigint, p_output_tokens bigint, p_estimated boolean, p_ttft_ms bigint, p_total_ms bigint, p_outcome text, p_domain text)
 RETURNS bigint
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
    VALUES (hearth_uuid_v7(), p_tenant, p_user, p_thread, p_message, p_provider, p_model, p_input_tokens, p_output_tokens,
            p_estimated, cost, priced, p_ttft_ms, p_total_ms, p_outcome);
    PERFORM hearth_memory_note_turn(p_tenant, p_user, p_thread);
    PERFORM hearth_stream_release(p_tenant, p_message);
    RETURN cost;
END
$$;
