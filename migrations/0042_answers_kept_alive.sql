-- A crash loses nothing (issue 39): the answers an instance is generating are kept alive by it, and their text is
-- stored while they stream.
--
-- An answer's row said only when it began streaming, and a server that died mid-answer was noticed five minutes
-- later (the longest a generation could last): until then the answer was not retryable, its text was empty, its
-- concurrent-stream slot taken and a reconnecting app was told 409 `generation_in_progress` with `Retry-After: 1`.
-- Now the instance generating an answer renews it (Coaching's `AnswerCheckpoints`): every half second the text
-- streamed so far, sealed, and every quarter of the lease's lifetime the answer's `alive_until` and its stream
-- lease, in one statement for all its answers. An answer past both its start and its last renewal by a lease's
-- lifetime has lost its server: it is retryable, its `…/events` serve what is stored, and the sweep marks it
-- interrupted and frees its slot. The lifetime is the instance's (`HEARTH_ANSWER_LEASE_SECONDS`), passed in.

ALTER TABLE messages ADD COLUMN alive_until timestamptz;

-- Whether a streaming answer has lost its server: neither its start nor its last renewal is within a lease's
-- lifetime. (A renewal left from an earlier attempt of a retried answer is older than the new start: ignored.)
CREATE FUNCTION hearth_answer_abandoned(p_since timestamptz, p_alive_until timestamptz, p_lifetime_seconds bigint)
    RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT greatest(p_since + make_interval(secs => p_lifetime_seconds), p_alive_until) < now() $$;

-- The seconds until a streaming answer is abandoned unless renewed (at least 1). From the clock, not now(): this
-- transaction may have begun before the renewal it reads was, and then now() + the lifetime would overstate it.
CREATE FUNCTION hearth_answer_seconds_left(p_since timestamptz, p_alive_until timestamptz, p_lifetime_seconds bigint)
    RETURNS bigint
    LANGUAGE sql VOLATILE
    AS $$
        SELECT greatest(1, ceil(extract(epoch FROM
            greatest(p_since + make_interval(secs => p_lifetime_seconds), p_alive_until) - clock_timestamp())))::bigint
    $$;

-- The live instance's renewal of its answers, in every tenant at once: `p_sealed` is the text streamed so far,
-- sealed, in base64 (empty: unchanged since the last checkpoint; a sealed text never is). Only answers still streaming are touched: a checkpoint that loses
-- the race with the answer's final write changes nothing. The lease is written back if it was lost (a retry of
-- the answer elsewhere that was refused releases the lease of the same id; an unlogged table is emptied by a
-- database crash). SECURITY DEFINER so that one statement covers every tenant; it writes only the rows named.
CREATE FUNCTION hearth_answers_keep(p_tenants uuid[], p_users uuid[], p_ids uuid[], p_sealed text[], p_lifetime_seconds bigint)
    RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
        WITH kept AS (
            UPDATE messages m SET content_ciphertext = coalesce(decode(nullif(k.sealed, ''), 'base64'), m.content_ciphertext),
                                  alive_until = now() + make_interval(secs => p_lifetime_seconds)
            FROM unnest(p_tenants, p_users, p_ids, p_sealed) AS k(tenant_id, user_id, id, sealed)
            WHERE m.id = k.id AND m.tenant_id = k.tenant_id AND m.status = 'streaming'
            RETURNING m.id, m.tenant_id, m.user_id
        )
        INSERT INTO stream_leases (lease_id, tenant_id, user_id, expires_at)
        SELECT id, tenant_id, user_id, now() + make_interval(secs => p_lifetime_seconds) FROM kept
        ON CONFLICT (lease_id) DO UPDATE SET expires_at = excluded.expires_at
    $$;
REVOKE ALL ON FUNCTION hearth_answers_keep(uuid[], uuid[], uuid[], text[], bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_answers_keep(uuid[], uuid[], uuid[], text[], bigint) TO hearth_app;

-- `…/events` for an answer streaming on no server here: interrupts it now if its server is gone (0, and its slot
-- freed), otherwise the seconds until it would be; NULL when it is not streaming. Runs in the tenant's scope.
CREATE FUNCTION hearth_answer_interrupt_if_abandoned(p_tenant uuid, p_message uuid, p_lifetime_seconds bigint)
    RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    answer record;
BEGIN
    SELECT streaming_since, alive_until INTO answer FROM messages WHERE id = p_message AND status = 'streaming' FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF NOT hearth_answer_abandoned(answer.streaming_since, answer.alive_until, p_lifetime_seconds) THEN
        RETURN hearth_answer_seconds_left(answer.streaming_since, answer.alive_until, p_lifetime_seconds);
    END IF;
    UPDATE messages SET status = 'interrupted', completed_at = now(), streaming_since = NULL WHERE id = p_message;
    PERFORM hearth_stream_release(p_tenant, p_message);
    RETURN 0;
END
$$;
REVOKE ALL ON FUNCTION hearth_answer_interrupt_if_abandoned(uuid, uuid, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_answer_interrupt_if_abandoned(uuid, uuid, bigint) TO hearth_app;

-- As in migration 0037, with abandonment as above: the argument is now the lease's lifetime.
CREATE OR REPLACE FUNCTION hearth_interrupt_abandoned_answers(p_older_than_seconds bigint) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
DECLARE
    swept uuid[];
BEGIN
    WITH interrupted AS (
        UPDATE messages SET status = 'interrupted', completed_at = now(), streaming_since = NULL
        WHERE status = 'streaming' AND hearth_answer_abandoned(streaming_since, alive_until, p_older_than_seconds)
        RETURNING id
    )
    SELECT coalesce(array_agg(id), '{}') INTO swept FROM interrupted;
    PERFORM hearth_stream_leases_sweep(swept);
    RETURN cardinality(swept);
END
$$;

-- As in migration 0023, but for two lines: a refusal for concurrent answers tells the time until the person's
-- first slot frees (its lease's expiry, which the live instance keeps a lifetime ahead; from the clock, as above),
-- not 1 s; and a new lease
-- lasts 20 s rather than ten minutes, until its instance first renews it (within a checkpoint's half second).
CREATE OR REPLACE FUNCTION hearth_coaching_admit(p_tenant uuid, p_user uuid, p_thread uuid, p_lease uuid) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
DECLARE
    settings billing_settings;
    sub subscriptions;
    status text;
    plan billing_plans;
    month_start date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
    today date := (now() AT TIME ZONE 'UTC')::date;
    month_cost bigint;
    today_tokens bigint;
    streams integer;
    first_free timestamptz;
    new_session boolean := false;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('hearth-admit:' || p_user::text, 0));
    SELECT * INTO settings FROM billing_settings WHERE tenant_id = p_tenant;
    SELECT * INTO sub FROM subscriptions WHERE user_id = p_user;
    IF NOT FOUND THEN
        INSERT INTO subscriptions (tenant_id, user_id, trial_ends_at)
        VALUES (p_tenant, p_user, now() + make_interval(days => settings.trial_days))
        RETURNING * INTO sub;
    END IF;
    status := hearth_subscription_status(sub.status, sub.expires_at, sub.grace_ends_at);

    IF status = 'trial' THEN
        IF sub.trial_ends_at <= now() THEN
            RETURN jsonb_build_object('outcome', 'subscription_required', 'reason', 'trial_ended');
        END IF;
        new_session := NOT (p_thread = ANY (sub.trial_threads));
        IF new_session AND cardinality(sub.trial_threads) >= settings.trial_sessions THEN
            RETURN jsonb_build_object('outcome', 'subscription_required', 'reason', 'trial_sessions_used');
        END IF;
    ELSIF status NOT IN ('active', 'grace_period') THEN
        RETURN jsonb_build_object('outcome', 'subscription_required', 'reason', status);
    END IF;

    SELECT * INTO plan FROM billing_plans WHERE tenant_id = p_tenant AND code = sub.plan_code;
    SELECT coalesce(sum(d.cost_micros), 0), coalesce(sum(d.input_tokens + d.output_tokens) FILTER (WHERE d.day = today), 0)
    INTO month_cost, today_tokens
    FROM usage_daily d WHERE d.tenant_id = p_tenant AND d.user_id = p_user AND d.day >= month_start;
    IF month_cost >= plan.monthly_budget_micros THEN
        RETURN jsonb_build_object('outcome', 'budget_exhausted', 'limit', 'monthly-budget', 'quota', plan.monthly_budget_micros,
            'reset', ceil(extract(epoch FROM ((month_start + interval '1 month')::timestamp AT TIME ZONE 'UTC') - now()))::bigint);
    END IF;
    IF today_tokens >= plan.tokens_per_day THEN
        RETURN jsonb_build_object('outcome', 'rate_limited', 'limit', 'tokens-per-day', 'quota', plan.tokens_per_day,
            'window', 86400, 'reset', ceil(extract(epoch FROM ((today + 1)::timestamp AT TIME ZONE 'UTC') - now()))::bigint);
    END IF;
    DELETE FROM stream_leases l WHERE l.user_id = p_user AND l.tenant_id = p_tenant AND l.expires_at <= now();
    SELECT count(*), min(l.expires_at) INTO streams, first_free FROM stream_leases l WHERE l.user_id = p_user AND l.tenant_id = p_tenant;
    IF streams >= plan.concurrent_streams THEN
        RETURN jsonb_build_object('outcome', 'rate_limited', 'limit', 'concurrent-streams', 'quota', plan.concurrent_streams,
            'reset', greatest(1, ceil(extract(epoch FROM first_free - clock_timestamp())))::bigint);
    END IF;

    INSERT INTO stream_leases (lease_id, tenant_id, user_id, expires_at) VALUES (p_lease, p_tenant, p_user, now() + interval '20 seconds')
    ON CONFLICT (lease_id) DO NOTHING;
    IF new_session THEN
        UPDATE subscriptions SET trial_threads = trial_threads || p_thread, updated_at = now() WHERE user_id = p_user;
    END IF;
    RETURN jsonb_build_object('outcome', 'admitted', 'plan', plan.code,
        'economy', CASE WHEN month_cost * 100 >= plan.monthly_budget_micros * plan.economy_at_percent THEN settings.economy_model END);
END
$$;
