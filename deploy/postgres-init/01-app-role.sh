#!/bin/sh
# First start of the compose PostgreSQL: the login role the app uses. It owns nothing and cannot bypass
# row-level security; the migrations grant it what it needs.
set -eu
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -c \
  "CREATE ROLE hearth_app LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '${HEARTH_APP_PASSWORD:?set HEARTH_APP_PASSWORD}'"
