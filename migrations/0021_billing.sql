-- Billing (the Billing module owns these tables): a tenant's trial and cost settings, its plans with their
-- per-user limits and budgets, each person's subscription, and the usage ledger summed per person and day.

CREATE TABLE billing_settings (
    tenant_id          uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    -- The free trial: days from the first coached message, and/or a number of sessions (threads coached in).
    -- NULL: no bound of that kind; 0 sessions: no trial at all.
    trial_days         integer DEFAULT 7 CHECK (trial_days BETWEEN 1 AND 365),
    trial_sessions     integer CHECK (trial_sessions BETWEEN 0 AND 1000),
    -- What the operator aims to spend per user per month (the console's yardstick; the PRD's $2).
    target_cost_micros bigint NOT NULL DEFAULT 2000000 CHECK (target_cost_micros >= 0),
    -- The cheaper model a person is switched to when nearing their plan's budget (same provider); NULL: none.
    economy_model      text CHECK (length(economy_model) BETWEEN 1 AND 200),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
SELECT hearth_isolate_tenant_table('billing_settings');

-- A plan and its per-user policy. 'trial' is the plan of everyone in their trial; a paid plan lists the App Store
-- product ids that buy it.
CREATE TABLE billing_plans (
    tenant_id             uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    code                  text NOT NULL CHECK (code ~ '^[a-z][a-z0-9_-]{0,31}$'),
    name                  text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
    product_ids           text[] NOT NULL DEFAULT '{}' CHECK (cardinality(product_ids) <= 20),
    requests_per_minute   integer NOT NULL CHECK (requests_per_minute BETWEEN 1 AND 100000),
    tokens_per_day        bigint NOT NULL CHECK (tokens_per_day BETWEEN 1 AND 1000000000),
    concurrent_streams    integer NOT NULL CHECK (concurrent_streams BETWEEN 1 AND 100),
    monthly_budget_micros bigint NOT NULL CHECK (monthly_budget_micros BETWEEN 1 AND 1000000000000),
    -- Share of the budget after which the economy model answers.
    economy_at_percent    integer NOT NULL DEFAULT 80 CHECK (economy_at_percent BETWEEN 1 AND 100),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, code)
);
SELECT hearth_isolate_tenant_table('billing_plans');

-- One row per person, made at their first coached message (when the trial starts).
CREATE TABLE subscriptions (
    tenant_id               uuid NOT NULL,
    user_id                 uuid PRIMARY KEY,
    status                  text NOT NULL DEFAULT 'trial'
                            CHECK (status IN ('trial', 'active', 'grace_period', 'billing_retry', 'expired', 'refunded', 'revoked')),
    plan_code               text NOT NULL DEFAULT 'trial',
    trial_started_at        timestamptz NOT NULL DEFAULT now(),
    trial_ends_at           timestamptz,
    -- The threads coached in during the trial: a session is counted once, when it is opened.
    trial_threads           uuid[] NOT NULL DEFAULT '{}',
    -- Set from verified App Store data.
    product_id              text,
    original_transaction_id text,
    expires_at              timestamptz,
    grace_ends_at           timestamptz,
    auto_renew              boolean,
    environment             text,
    -- The newest signedDate applied: older notifications arriving late are ignored.
    signed_at               timestamptz,
    updated_at              timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, plan_code) REFERENCES billing_plans (tenant_id, code)
);
SELECT hearth_isolate_tenant_table('subscriptions');

-- Every tenant starts with settings and two plans, so a policy is never missing.
CREATE FUNCTION hearth_billing_seed() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public
    AS $$
BEGIN
    INSERT INTO billing_settings (tenant_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    INSERT INTO billing_plans (tenant_id, code, name, requests_per_minute, tokens_per_day, concurrent_streams, monthly_budget_micros)
    VALUES (NEW.id, 'trial', 'Free trial', 60, 60000, 2, 1000000),
           (NEW.id, 'premium', 'Premium', 120, 200000, 3, 4000000)
    ON CONFLICT DO NOTHING;
    RETURN NEW;
END
$$;
CREATE TRIGGER billing_seed AFTER INSERT ON tenants FOR EACH ROW EXECUTE FUNCTION hearth_billing_seed();
INSERT INTO billing_settings (tenant_id) SELECT id FROM tenants;
INSERT INTO billing_plans (tenant_id, code, name, requests_per_minute, tokens_per_day, concurrent_streams, monthly_budget_micros)
SELECT id, 'trial', 'Free trial', 60, 60000, 2, 1000000 FROM tenants
UNION ALL
SELECT id, 'premium', 'Premium', 120, 200000, 3, 4000000 FROM tenants;

-- The usage ledger summed per person and UTC day: what budgets, tokens per day and the cost reports read. Kept by
-- a trigger on usage_records (one row's update in the turn's closing transaction), so it cannot drift from the
-- records, whoever writes them.
CREATE TABLE usage_daily (
    tenant_id     uuid NOT NULL,
    user_id       uuid NOT NULL,
    day           date NOT NULL,
    turns         integer NOT NULL DEFAULT 0,
    input_tokens  bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost_micros   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, user_id, day),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX usage_daily_tenant_day ON usage_daily (tenant_id, day);
SELECT hearth_isolate_tenant_table('usage_daily');

CREATE FUNCTION hearth_usage_daily_add() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO usage_daily AS d (tenant_id, user_id, day, turns, input_tokens, output_tokens, cost_micros)
    VALUES (NEW.tenant_id, NEW.user_id, (NEW.created_at AT TIME ZONE 'UTC')::date, 1, NEW.input_tokens, NEW.output_tokens,
            NEW.cost_micros)
    ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET
        turns = d.turns + 1, input_tokens = d.input_tokens + excluded.input_tokens,
        output_tokens = d.output_tokens + excluded.output_tokens, cost_micros = d.cost_micros + excluded.cost_micros;
    RETURN NULL;
END
$$;
CREATE TRIGGER usage_daily_add AFTER INSERT ON usage_records FOR EACH ROW EXECUTE FUNCTION hearth_usage_daily_add();
INSERT INTO usage_daily (tenant_id, user_id, day, turns, input_tokens, output_tokens, cost_micros)
SELECT tenant_id, user_id, (created_at AT TIME ZONE 'UTC')::date, count(*), sum(input_tokens), sum(output_tokens), sum(cost_micros)
FROM usage_records GROUP BY 1, 2, 3;

-- The answers being generated for a person now: a lease per answer, taken by the admission below and given
-- back when the answer is stored (hearth_turn_finish) or was never started. UNLOGGED like rate_windows: a
-- lease outlives no crash, and one left behind by a crashed server expires on its own.
CREATE UNLOGGED TABLE stream_leases (
    lease_id   uuid PRIMARY KEY,
    tenant_id  uuid NOT NULL,
    user_id    uuid NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX stream_leases_user ON stream_leases (tenant_id, user_id);
SELECT hearth_isolate_tenant_table('stream_leases');
