-- App Store (the Billing module's AppStore feature owns these tables): how a tenant's signed App Store data is
-- verified, and the notifications already applied. The entitlement itself stays in `subscriptions`.

CREATE TABLE appstore_settings (
    tenant_id         uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    bundle_id         text NOT NULL CHECK (bundle_id ~ '^[A-Za-z0-9][A-Za-z0-9.-]{0,154}$'),
    -- The app's Apple ID in the App Store; Apple's libraries require it to accept Production data.
    app_apple_id      bigint CHECK (app_apple_id > 0),
    -- The environments accepted: Production, and Sandbox for TestFlight and App Review purchases.
    environments      text[] NOT NULL CHECK (cardinality(environments) BETWEEN 1 AND 2
                                             AND environments <@ ARRAY['Production', 'Sandbox']),
    -- DER certificates the chain must end at; empty: Apple Root CA - G3 (built in).
    root_certificates bytea[] NOT NULL DEFAULT '{}' CHECK (cardinality(root_certificates) <= 8),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CHECK (NOT ('Production' = ANY (environments)) OR app_apple_id IS NOT NULL)
);
SELECT hearth_isolate_tenant_table('appstore_settings');

-- Every App Store Server Notification applied (or deliberately passed over), by its notificationUUID: Apple
-- retries and may send one twice, and a duplicate must change nothing. A notification that failed is not
-- recorded, so Apple's retry can still apply it.
CREATE TABLE appstore_notifications (
    tenant_id               uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    notification_uuid       uuid NOT NULL,
    notification_type       text NOT NULL CHECK (length(notification_type) <= 64),
    subtype                 text CHECK (length(subtype) <= 64),
    environment             text,
    signed_at               timestamptz NOT NULL,
    received_at             timestamptz NOT NULL DEFAULT now(),
    -- applied: the subscription changed; stale: older than what the subscription already holds;
    -- ignored: nothing about a subscription in it (a TEST, a consumption request…).
    outcome                 text NOT NULL CHECK (outcome IN ('applied', 'stale', 'ignored')),
    original_transaction_id text,
    user_id                 uuid,
    PRIMARY KEY (tenant_id, notification_uuid),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE SET NULL (user_id)
);
SELECT hearth_isolate_tenant_table('appstore_notifications');

-- A purchase entitles one person: the last one it was verified for (a reinstall's new account restores it).
CREATE UNIQUE INDEX subscriptions_original_transaction ON subscriptions (tenant_id, original_transaction_id)
    WHERE original_transaction_id IS NOT NULL;

-- A subscription's status as of now: the stored one is what Apple last signed, and a paid period that has
-- ended without a newer signed word (a renewal, a billing retry) has expired; a grace period that has run out
-- is a billing retry. Read by the admission and the subscription view alike.
CREATE FUNCTION hearth_subscription_status(p_status text, p_expires_at timestamptz, p_grace_ends_at timestamptz)
    RETURNS text
    LANGUAGE sql STABLE
    AS $$
    SELECT CASE
        WHEN p_status = 'active' AND p_expires_at <= now() THEN 'expired'
        WHEN p_status = 'grace_period' AND p_grace_ends_at <= now() THEN 'billing_retry'
        ELSE p_status
    END
$$;

-- The admission, unchanged but for reading the status as of now (above).
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
