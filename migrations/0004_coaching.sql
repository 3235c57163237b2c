-- Coaching: threads, their messages, each tenant's LLM providers, the price table and usage records.

CREATE TABLE threads (
    id               uuid PRIMARY KEY,
    tenant_id        uuid NOT NULL,
    user_id          uuid NOT NULL,
    session_type     text NOT NULL
                     CHECK (session_type IN ('freeform', 'check_in', 'guided_exercise', 'crisis_support', 'goal_review')),
    -- the title is personal (people name threads after what troubles them): encrypted like messages
    title_ciphertext bytea,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX threads_tenant_user_updated ON threads (tenant_id, user_id, updated_at DESC, id DESC);

-- seq orders messages and is the pagination cursor: unique, increasing, never reused.
CREATE TABLE messages (
    id                 uuid PRIMARY KEY,
    seq                bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id          uuid NOT NULL,
    thread_id          uuid NOT NULL,
    user_id            uuid NOT NULL,
    role               text NOT NULL CHECK (role IN ('user', 'assistant')),
    status             text NOT NULL CHECK (status IN ('complete', 'streaming', 'interrupted', 'failed')),
    content_ciphertext bytea NOT NULL,
    -- an assistant message's user message
    reply_to           uuid,
    provider           text,
    model              text,
    idempotency_key    text CHECK (length(idempotency_key) <= 128),
    created_at         timestamptz NOT NULL DEFAULT now(),
    completed_at       timestamptz,
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX messages_tenant_thread_seq ON messages (tenant_id, thread_id, seq);
CREATE UNIQUE INDEX messages_tenant_idempotency ON messages (tenant_id, thread_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- A tenant's providers: position 0 answers, position 1 is the fallback. No rows: the offline model.
-- Keys are never stored, only a reference (env:NAME or file:/path) resolved at call time.
CREATE TABLE tenant_llm_providers (
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    position    integer NOT NULL CHECK (position IN (0, 1)),
    kind        text NOT NULL CHECK (kind IN ('openai', 'anthropic', 'offline')),
    model       text NOT NULL CHECK (length(model) BETWEEN 1 AND 200),
    base_url    text CHECK (base_url ~ '^https?://'),
    api_key_ref text CHECK (api_key_ref ~ '^(env:[A-Za-z_][A-Za-z0-9_]*|file:/.+)$'),
    PRIMARY KEY (tenant_id, position)
);

-- Prices in micro-dollars per million tokens, effective from a date (a price change is a new row).
CREATE TABLE llm_prices (
    provider                  text NOT NULL,
    model                     text NOT NULL,
    effective_from            date NOT NULL,
    input_micros_per_million  bigint NOT NULL CHECK (input_micros_per_million >= 0),
    output_micros_per_million bigint NOT NULL CHECK (output_micros_per_million >= 0),
    PRIMARY KEY (provider, model, effective_from)
);
INSERT INTO llm_prices VALUES
    ('offline',   'hearth-offline-1',  '2025-01-01',        0,         0),
    ('openai',    'gpt-4o-mini',       '2025-01-01',   150000,    600000),
    ('openai',    'gpt-4o',            '2025-01-01',  2500000,  10000000),
    ('openai',    'gpt-4.1-mini',      '2025-04-14',   400000,   1600000),
    ('openai',    'deepseek-chat',     '2025-01-01',   270000,   1100000),
    ('anthropic', 'claude-3-5-haiku-latest', '2025-01-01',  800000,   4000000),
    ('anthropic', 'claude-sonnet-4-0', '2025-05-22',  3000000,  15000000);

-- One row per turn's provider call, written in the same transaction as the assistant message.
CREATE TABLE usage_records (
    id               uuid PRIMARY KEY,
    tenant_id        uuid NOT NULL,
    user_id          uuid NOT NULL,
    thread_id        uuid,
    message_id       uuid,
    provider         text NOT NULL,
    model            text NOT NULL,
    input_tokens     integer NOT NULL,
    output_tokens    integer NOT NULL,
    -- true when the provider did not report counts and they were estimated (about 4 characters a token)
    tokens_estimated boolean NOT NULL,
    cost_micros      bigint NOT NULL,
    -- false when the price table has no price for this model (cost_micros is then 0)
    priced           boolean NOT NULL,
    ttft_ms          integer,
    total_ms         integer NOT NULL,
    outcome          text NOT NULL CHECK (outcome IN ('completed', 'interrupted', 'unavailable')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX usage_records_tenant_created ON usage_records (tenant_id, created_at);
CREATE INDEX usage_records_tenant_user_created ON usage_records (tenant_id, user_id, created_at);

GRANT SELECT ON llm_prices TO hearth_app;
SELECT hearth_isolate_tenant_table('threads');
SELECT hearth_isolate_tenant_table('messages');
SELECT hearth_isolate_tenant_table('tenant_llm_providers');
SELECT hearth_isolate_tenant_table('usage_records');
