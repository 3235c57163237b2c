-- Creator personas (Personas owns these tables). A creator edits a working copy (`draft`); what the public
-- sees and what threads coach with is `published`, the copy last approved. So an edit to an approved persona
-- goes through review while the approved copy stays live, and a rejected edit leaves it live too. `status` is
-- the working copy's review state; 'suspended' takes the whole persona down until a moderator reinstates it.
-- Persona text is public material written to be shared, not personal data: it is stored in clear.
CREATE TABLE personas (
    id                  uuid PRIMARY KEY,
    tenant_id           uuid NOT NULL,
    creator_id          uuid NOT NULL,
    status              text NOT NULL CHECK (status IN ('draft', 'submitted', 'approved', 'rejected', 'suspended')),
    -- name, domain, description, tone, methodology, personality, greeting, examples, creator name (Personas'
    -- PersonaContent, checked there)
    draft               jsonb NOT NULL CHECK (jsonb_typeof(draft) = 'object'),
    draft_avatar_id     uuid,
    -- every edit bumps it: a moderator approves the revision they read, not a later one
    revision            integer NOT NULL DEFAULT 1 CHECK (revision >= 1),
    -- the automatic screening of the submitted revision: {"verdict": "pass"|"flag", "reasons": [...]}
    screening           jsonb,
    -- why the last rejection or suspension happened, shown to the creator
    review_note         text CHECK (length(review_note) BETWEEN 1 AND 1000),
    published           jsonb CHECK (jsonb_typeof(published) = 'object'),
    published_avatar_id uuid,
    published_revision  integer,
    published_at        timestamptz,
    submitted_at        timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, creator_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE,
    CHECK ((status = 'submitted') = (submitted_at IS NOT NULL)),
    CHECK ((published IS NULL) = (published_at IS NULL) AND (published IS NULL) = (published_revision IS NULL))
);
CREATE INDEX personas_creator ON personas (tenant_id, creator_id, created_at DESC);
-- the moderation queue, oldest first
CREATE INDEX personas_queue ON personas (tenant_id, submitted_at) WHERE status = 'submitted';
SELECT hearth_isolate_tenant_table('personas');

-- Avatar images, checked on upload (type by their bytes, size, dimensions). A persona keeps at most two: the
-- working copy's and the published copy's.
CREATE TABLE persona_avatars (
    id            uuid PRIMARY KEY,
    tenant_id     uuid NOT NULL,
    persona_id    uuid NOT NULL,
    content_type  text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg')),
    width         integer NOT NULL CHECK (width BETWEEN 1 AND 4096),
    height        integer NOT NULL CHECK (height BETWEEN 1 AND 4096),
    bytes         bytea NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 1048576),
    created_at    timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, persona_id) REFERENCES personas (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX persona_avatars_persona ON persona_avatars (tenant_id, persona_id);
SELECT hearth_isolate_tenant_table('persona_avatars');

-- A persona's review history, the moderation audit record: who (the creator, the screening, an operator) did
-- what to which revision, and why. Kept while the persona exists; an operator's row outlives the operator.
CREATE TABLE persona_reviews (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id    uuid NOT NULL,
    persona_id   uuid NOT NULL,
    revision     integer NOT NULL,
    action       text NOT NULL CHECK (action IN ('submitted', 'screened', 'approved', 'rejected', 'suspended', 'reinstated')),
    actor        text NOT NULL CHECK (actor IN ('creator', 'screening', 'operator')),
    operator_id  uuid REFERENCES operators (id) ON DELETE SET NULL,
    -- the operator's email when they acted: the record stays readable after the account is gone
    operator_email text,
    note         text CHECK (length(note) <= 1000),
    screening    jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, persona_id) REFERENCES personas (tenant_id, id) ON DELETE CASCADE,
    CHECK ((actor = 'operator') = (operator_email IS NOT NULL))
);
CREATE INDEX persona_reviews_persona ON persona_reviews (tenant_id, persona_id, id);
SELECT hearth_isolate_tenant_table('persona_reviews');

-- A thread started with a persona is coached by the persona's published copy (Coaching reads it on each turn).
ALTER TABLE threads ADD COLUMN persona_id uuid;
ALTER TABLE threads ADD FOREIGN KEY (tenant_id, persona_id) REFERENCES personas (tenant_id, id) ON DELETE SET NULL (persona_id);

-- A tenant's persona settings. review: 'flagged' approves a submission the screening passes and queues the rest
-- for a moderator; 'all' queues every submission. No row: 'flagged'.
CREATE TABLE persona_settings (
    tenant_id   uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    review      text NOT NULL DEFAULT 'flagged' CHECK (review IN ('flagged', 'all')),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
SELECT hearth_isolate_tenant_table('persona_settings');
