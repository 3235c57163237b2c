-- Share links of personas (Personas owns these tables, FR24/FR25). A creator's link, or a user's share of a
-- persona they love: one live link a person and persona, under an unguessable slug that is unique across
-- tenants (the public page /p/{slug} knows no tenant until it reads it). Rotating revokes the old slug.
CREATE TABLE persona_links (
    id          uuid PRIMARY KEY,
    tenant_id   uuid NOT NULL,
    persona_id  uuid NOT NULL,
    user_id     uuid NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('creator', 'share')),
    slug        text NOT NULL UNIQUE CHECK (slug ~ '^[A-Za-z0-9]{16}$'),
    -- counted as they happen: the page opened in a browser, and the app opened from the link
    clicks      bigint NOT NULL DEFAULT 0,
    app_opens   bigint NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz,
    UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, persona_id) REFERENCES personas (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX persona_links_live ON persona_links (tenant_id, persona_id, user_id) WHERE revoked_at IS NULL;
CREATE INDEX persona_links_persona ON persona_links (tenant_id, persona_id);
SELECT hearth_isolate_tenant_table('persona_links');

-- Sessions started from a link: one row a person and link, with the thread it started (kept when the thread is
-- deleted, so the count stays true).
CREATE TABLE persona_link_starts (
    tenant_id   uuid NOT NULL,
    link_id     uuid NOT NULL,
    user_id     uuid NOT NULL,
    thread_id   uuid,
    started_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (link_id, user_id),
    FOREIGN KEY (tenant_id, link_id) REFERENCES persona_links (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE SET NULL (thread_id)
);
SELECT hearth_isolate_tenant_table('persona_link_starts');
