-- Coaching domains as configuration (CoachingDomains owns this table). Every change is a new row: the newest
-- version of a key is the domain in effect, older ones are its history, and a rollback writes an old
-- definition again as the newest version. A tenant with no rows is given the default domains (the files in
-- domains/) the first time a turn needs them.
CREATE TABLE domain_versions (
    id          bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key         text NOT NULL CHECK (key ~ '^[a-z][a-z0-9_-]{1,31}$'),
    version     integer NOT NULL CHECK (version >= 1),
    -- the definition as docs/domains.md describes it (enabled included), in JSON
    definition  jsonb NOT NULL,
    -- how it got here: the watched files, the CLI, the console, or a rollback
    source      text NOT NULL CHECK (source IN ('file', 'import', 'console', 'rollback')),
    -- who: a file path, an operator's email, 'cli'
    author      text NOT NULL CHECK (length(author) <= 300),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, key, version)
);
-- The newest id is the tenant's catalog stamp: the chat turn reads it to know whether its cached router is stale.
CREATE INDEX domain_versions_tenant_id ON domain_versions (tenant_id, id);
SELECT hearth_isolate_tenant_table('domain_versions');
