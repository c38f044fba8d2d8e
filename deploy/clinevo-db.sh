#!/bin/sh
# Creates, on the compose PostgreSQL, Temporal's two databases (temporal and
# temporal_visibility, whose schemas temporal-schema.sh then sets up) and
# clinevo's role and database, as the databases service runs it (psql reads
# PGHOST, PGUSER and PGPASSWORD, the server's administrator). Every step is
# idempotent, and the role's password is set to CLINEVO_DB_PASSWORD each time,
# so changing it in .env takes effect at the next `docker compose up`. The
# password reaches the server as a psql variable, quoted by format(%L), never
# as text in this file.
set -eu
: "${CLINEVO_DB_PASSWORD:?set CLINEVO_DB_PASSWORD in .env}"
psql -X -q -v ON_ERROR_STOP=1 -v pw="$CLINEVO_DB_PASSWORD" --dbname postgres <<'SQL'
SELECT 'CREATE DATABASE temporal'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'temporal') \gexec
SELECT 'CREATE DATABASE temporal_visibility'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'temporal_visibility') \gexec
SELECT format('CREATE ROLE clinevo LOGIN PASSWORD %L', :'pw')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'clinevo') \gexec
SELECT format('ALTER ROLE clinevo LOGIN PASSWORD %L', :'pw') \gexec
SELECT 'CREATE DATABASE clinevo OWNER clinevo'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'clinevo') \gexec
SQL
echo "databases: temporal, temporal_visibility and clinevo (role clinevo) ready"
