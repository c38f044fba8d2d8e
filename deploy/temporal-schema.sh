#!/bin/sh
# Brings the compose Temporal's two databases (created by clinevo-db.sh) to
# the schema of the admin-tools image's release, as the temporal-schema
# service runs it. temporal-sql-tool reads the password from SQL_PASSWORD.
# setup-schema -v 0.0 writes the version tables once and is a no-op on a
# database past 0.0; update-schema applies, from the schema embedded in the
# tool, every version the database lacks. So the script is safe to repeat,
# and a newer image upgrades the schema before the newer server starts.
set -eu
: "${POSTGRES_SEEDS:?set POSTGRES_SEEDS (the PostgreSQL host)}"
: "${POSTGRES_USER:?set POSTGRES_USER}"
: "${SQL_PASSWORD:?set SQL_PASSWORD (POSTGRES_PASSWORD of .env)}"
sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" "$@"; }
for db in temporal:temporal visibility:temporal_visibility; do
	schema=${db%%:*}
	name=${db##*:}
	sql --db "$name" setup-schema -v 0.0
	sql --db "$name" update-schema --schema-name "postgresql/v12/$schema"
	echo "temporal-schema: $name is at the schema of this release"
done
