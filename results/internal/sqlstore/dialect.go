// Package sqlstore is the one implementation of results.Store over
// database/sql: every query, the row encodings and the versioned migrations,
// written once for SQLite and PostgreSQL. A Dialect holds what the two
// engines spell differently; results/sqlite and results/postgres open the
// connection, pick the dialect and classify their engine's failures.
package sqlstore

import (
	"fmt"
	"strings"
)

// Dialect is what one SQL engine spells its own way. Everything else (the
// upserts, ON CONFLICT, RETURNING, the casts) is SQL both engines read alike.
type Dialect struct {
	engine engine
	// dollars: the engine reads PostgreSQL's numbered placeholders ($1);
	// otherwise they become ?1, the same numbered placeholder in SQLite.
	dollars bool
	// begin opens a migration's transaction holding the lock that serialises
	// the migrations of processes opening one store together.
	begin []string
	// versions creates the table of applied schema versions.
	versions string
	// now is the time a migration is applied, in schema_migrations.applied's type.
	now string
	// joined is the aggregate that joins a text column's values over a
	// group with commas (a fmt format of the column).
	joined string
}

// engine names a dialect for the migrations whose SQL differs by engine.
type engine string

const (
	sqliteSQL   engine = "sqlite"
	postgresSQL engine = "postgres"
)

// migrationLock is the PostgreSQL advisory lock key that serialises
// migrations: workers starting together apply each migration once.
const migrationLock = 0x636c6e76 // "clnv"

// SQLite is the dialect of SQLite (modernc.org/sqlite).
var SQLite = Dialect{
	engine: sqliteSQL,
	// BEGIN IMMEDIATE takes the write lock before the version is read, so
	// two processes opening one file apply each migration once.
	begin: []string{`BEGIN IMMEDIATE`},
	versions: `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`,
	// RFC 3339 in UTC, as the files written before this package hold it.
	now:    `strftime('%Y-%m-%dT%H:%M:%SZ', 'now')`,
	joined: `group_concat(%s, ',')`,
}

// PostgreSQL is the dialect of PostgreSQL (pgx).
var PostgreSQL = Dialect{
	engine:  postgresSQL,
	dollars: true,
	begin:   []string{`BEGIN`, fmt.Sprintf(`SELECT pg_advisory_xact_lock(%d)`, migrationLock)},
	versions: `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TIMESTAMPTZ NOT NULL DEFAULT now())`,
	now:    `now()`,
	joined: `string_agg(%s, ',')`,
}

// bind spells a query's $n placeholders as the engine reads them. The
// queries hold no other $.
func (d Dialect) bind(query string) string {
	if d.dollars {
		return query
	}
	return strings.ReplaceAll(query, "$", "?")
}
