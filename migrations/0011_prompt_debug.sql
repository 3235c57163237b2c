-- Whether a tenant's users may see the prompt assembled for their own turns (the memory issue's debug view).
-- Off by default: the view shows what Hearth remembers about the user, so the app opts in.
ALTER TABLE tenants ADD COLUMN prompt_debug boolean NOT NULL DEFAULT false;
