-- Admission: the limits checked on the way in, folded into round trips the requests already make (decision 0012).
--
-- 1. Every signed-in request: the live-session check also counts the request against the tenant's requests per
--    second and the person's plan's requests per minute (hearth_session_admit replaces hearth_session_is_active).
-- 2. Every coached answer (send, retry): the turn's context read first asks hearth_coaching_admit whether the
--    person may be coached now: their trial or subscription, their plan's monthly budget, tokens per day and
--    concurrent answers. Refused, the read stops there and nothing is stored.

-- Whether a person may be coached now, as JSON: {"outcome": "admitted", "plan", "economy" (the model to answer with
-- when nearing the budget)} or {"outcome": "subscription_required" | "budget_exhausted" | "rate_limited", "reason",
-- "limit", "quota", "window", "reset"}. Admitted, it holds a stream lease `p_lease` until the answer is stored,
-- and counts the thread as a trial session when it is a new one.
-- Runs in the caller's transaction, tenant-scoped. People are serialised by an advisory lock rather than a row
-- lock: a row lock writes WAL and would make every turn's first round trip wait for the disk.
CREATE FUNCTION hearth_coaching_admit(p_tenant uuid, p_user uuid, p_thread uuid, p_lease uuid) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
DECLARE
    settings billing_settings;
    sub subscriptions;
    plan billing_plans;
    month_start date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
    today date := (now() AT TIME ZONE 'UTC')::date;
    month_cost bigint;
    today_tokens bigint;
    streams integer;
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

    IF sub.status = 'trial' THEN
        IF sub.trial_ends_at <= now() THEN
            RETURN jsonb_build_object('outcome', 'subscription_required', 'reason', 'trial_ended');
        END IF;
        new_session := NOT (p_thread = ANY (sub.trial_threads));
        IF new_session AND cardinality(sub.trial_threads) >= settings.trial_sessions THEN
            RETURN jsonb_build_object('outcome', 'subscription_required', 'reason', 'trial_sessions_used');
        END IF;
    ELSIF sub.status NOT IN ('active', 'grace_period') THEN
        RETURN jsonb_build_object('outcome', 'subscription_required', 'reason', sub.status);
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
    SELECT count(*) INTO streams FROM stream_leases l WHERE l.user_id = p_user AND l.tenant_id = p_tenant;
    IF streams >= plan.concurrent_streams THEN
        RETURN jsonb_build_object('outcome', 'rate_limited', 'limit', 'concurrent-streams', 'quota', plan.concurrent_streams,
            'reset', 1);
    END IF;

    INSERT INTO stream_leases (lease_id, tenant_id, user_id, expires_at) VALUES (p_lease, p_tenant, p_user, now() + interval '10 minutes')
    ON CONFLICT (lease_id) DO NOTHING;
    IF new_session THEN
        UPDATE subscriptions SET trial_threads = trial_threads || p_thread, updated_at = now() WHERE user_id = p_user;
    END IF;
    RETURN jsonb_build_object('outcome', 'admitted', 'plan', plan.code,
        'economy', CASE WHEN month_cost * 100 >= plan.monthly_budget_micros * plan.economy_at_percent THEN settings.economy_model END);
END
$$;
REVOKE ALL ON FUNCTION hearth_coaching_admit(uuid, uuid, uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_coaching_admit(uuid, uuid, uuid, uuid) TO hearth_app;

-- Gives a lease back early: an answer that was never started (a replay, a failure before the provider call).
CREATE FUNCTION hearth_stream_release(p_tenant uuid, p_lease uuid) RETURNS void
    LANGUAGE sql
    AS $$ DELETE FROM stream_leases WHERE tenant_id = p_tenant AND lease_id = p_lease $$;
REVOKE ALL ON FUNCTION hearth_stream_release(uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_stream_release(uuid, uuid) TO hearth_app;

-- The turn's context read, with the admission first when `p_lease` is given (sends and retries; the prompt
-- preview reads without one). Its 'admission' row carries the JSON above; refused, nothing else is read.
DROP FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint);
CREATE FUNCTION hearth_turn_context(p_tenant uuid, p_user uuid, p_thread uuid, p_before uuid, p_history bigint, p_lease uuid)
    RETURNS TABLE (kind text, id uuid, number integer, name text, model text, url text, reference text, sealed bytea)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    admission jsonb;
BEGIN
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    RETURN QUERY SELECT 'thread', NULL::uuid, NULL::integer, t.session_type, t.domain,
                        extract(epoch FROM t.crisis_at)::bigint::text, CASE WHEN t.domain_pinned THEN 'pinned' END, NULL::bytea
        FROM threads t WHERE t.id = p_thread AND t.user_id = p_user;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF p_lease IS NOT NULL THEN
        admission := hearth_coaching_admit(p_tenant, p_user, p_thread, p_lease);
        RETURN QUERY SELECT 'admission', NULL::uuid, NULL::integer, NULL, NULL, NULL, admission::text, NULL::bytea;
        IF admission->>'outcome' <> 'admitted' THEN
            RETURN;
        END IF;
    END IF;
    -- A persona's published copy, while it is live (a suspended persona's threads coach without it).
    RETURN QUERY SELECT 'persona', p.id, p.published_revision, NULL, NULL, NULL, p.published::text, NULL::bytea
        FROM threads t JOIN personas p ON p.id = t.persona_id
        WHERE t.id = p_thread AND p.published IS NOT NULL AND p.status <> 'suspended';
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
REVOKE ALL ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_turn_context(uuid, uuid, uuid, uuid, bigint, uuid) TO hearth_app;

-- The answer stored gives its stream lease back in the same transaction (the lease id is the answer's id).
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
    PERFORM hearth_stream_release(p_tenant, p_message);
    RETURN cost;
END
$$;

-- The live-session check of every signed-in request, now also its rate limits: one row, `active` false for a
-- session that is not live (then nothing is counted); otherwise the tightest limit's state: the tenant's
-- requests per second when that is exceeded, else the person's requests per minute (from their plan; the trial
-- plan before they have a subscription row). SECURITY DEFINER as before: it reads auth_sessions unscoped and
-- filters by tenant itself.
CREATE FUNCTION hearth_session_admit(p_tenant uuid, p_session uuid, p_user uuid)
    RETURNS TABLE (active boolean, name text, quota bigint, window_seconds integer, used bigint, reset_seconds integer)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
DECLARE
    per_second bigint;
    per_minute bigint;
    taken record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM auth_sessions s WHERE s.tenant_id = p_tenant AND s.id = p_session AND s.user_id = p_user
                   AND s.revoked_at IS NULL) THEN
        RETURN QUERY SELECT false, NULL::text, NULL::bigint, NULL::integer, NULL::bigint, NULL::integer;
        RETURN;
    END IF;
    SELECT l.requests_per_second INTO per_second FROM tenant_limits l WHERE l.tenant_id = p_tenant;
    SELECT * INTO taken FROM hearth_rate_take(p_tenant, 'tenant-requests-per-second', '', per_second, 1);
    IF taken.used > per_second THEN
        RETURN QUERY SELECT true, 'tenant-requests-per-second', per_second, 1, taken.used, taken.reset_seconds;
        RETURN;
    END IF;
    SELECT p.requests_per_minute INTO per_minute
    FROM billing_plans p
    WHERE p.tenant_id = p_tenant
      AND p.code = coalesce((SELECT s.plan_code FROM subscriptions s WHERE s.user_id = p_user AND s.tenant_id = p_tenant), 'trial');
    SELECT * INTO taken FROM hearth_rate_take(p_tenant, 'requests-per-minute', p_user::text, per_minute, 60);
    RETURN QUERY SELECT true, 'requests-per-minute', per_minute, 60, taken.used, taken.reset_seconds;
END
$$;
REVOKE ALL ON FUNCTION hearth_session_admit(uuid, uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_session_admit(uuid, uuid, uuid) TO hearth_app;
DROP FUNCTION hearth_session_is_active(uuid, uuid, uuid);
