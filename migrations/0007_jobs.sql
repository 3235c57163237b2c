-- Background jobs: a durable queue in Postgres shared by every server instance (HearthPlatform's Jobs owns
-- both tables). Workers claim with FOR UPDATE SKIP LOCKED, so instances never run the same job at once; a
-- claim is a lease, and a job whose worker died is claimed again when the lease runs out.
--
-- A platform table: the runner claims across tenants before it knows one, so there is no row-level
-- security. Handlers do their work inside Database.withTenant(tenant_id). Payloads carry ids and
-- parameters only, never personal content (they are not encrypted); last_error is an error's type and
-- message, which handlers keep free of personal data.
CREATE TABLE jobs (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_.-]{0,63}$'),
    tenant_id    uuid REFERENCES tenants (id) ON DELETE CASCADE,
    payload      jsonb NOT NULL DEFAULT '{}',
    -- at most one pending job per (kind, dedupe_key): enqueueing a duplicate does nothing
    dedupe_key   text CHECK (length(dedupe_key) <= 200),
    state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'dead')),
    -- claims so far, including the one running now
    attempts     integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts BETWEEN 1 AND 100),
    run_at       timestamptz NOT NULL DEFAULT now(),
    locked_by    text,
    locked_until timestamptz,
    last_error   text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);
CREATE INDEX jobs_pending ON jobs (run_at) WHERE state = 'pending';
CREATE INDEX jobs_leased ON jobs (locked_until) WHERE state = 'running';
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE state IN ('done', 'dead');
CREATE UNIQUE INDEX jobs_pending_dedupe ON jobs (kind, dedupe_key)
    WHERE dedupe_key IS NOT NULL AND state = 'pending';

-- Recurring jobs: whichever instance moves next_run_at forward enqueues that run, so each run is enqueued once.
CREATE TABLE job_schedules (
    name        text PRIMARY KEY,
    next_run_at timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE, DELETE ON jobs, job_schedules TO hearth_app;
