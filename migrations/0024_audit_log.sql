-- The operators' audit log (HearthPlatform's AuditLog owns it): every change made through the console or the
-- operator API, who made it and when. Platform-level like operators (a platform admin's changes span tenants);
-- reads filter by tenant. Append-only for the application: it may insert and read, never change or delete.
CREATE TABLE audit_log (
    id             bigserial PRIMARY KEY,
    -- NULL: a platform-wide change.
    tenant_id      uuid REFERENCES tenants (id) ON DELETE CASCADE,
    operator_id    uuid REFERENCES operators (id) ON DELETE SET NULL,
    -- Kept in clear so the entry still names its author after the operator is deleted (staff, not end users).
    operator_email text NOT NULL,
    action         text NOT NULL CHECK (length(action) BETWEEN 1 AND 100),
    detail         text NOT NULL DEFAULT '' CHECK (length(detail) <= 2000),
    at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_tenant_at ON audit_log (tenant_id, at DESC, id DESC);
GRANT SELECT, INSERT ON audit_log TO hearth_app;
GRANT USAGE ON SEQUENCE audit_log_id_seq TO hearth_app;
