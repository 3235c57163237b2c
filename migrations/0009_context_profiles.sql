-- Memory: each user's context profile (values, goals, life situation, preferences, current stressors …).
-- The whole profile is one JSON document sealed with the user's data key, so no field is readable at rest and
-- a partial update rewrites it in one transaction (Memory's ContextProfileStore owns the table).
CREATE TABLE context_profiles (
    tenant_id                     uuid NOT NULL,
    user_id                       uuid PRIMARY KEY,
    profile_ciphertext            bytea,
    updated_at                    timestamptz NOT NULL DEFAULT now(),
    -- the user declined to set up context when prompted after their first session (FR11)
    setup_prompt_dismissed_at     timestamptz,
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
SELECT hearth_isolate_tenant_table('context_profiles');
