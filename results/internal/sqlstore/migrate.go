package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/clinevo/clinevo/fault"
)

// migration is one version of the schema. A released migration never changes:
// a change of schema is a new migration at the end of the list.
type migration struct {
	version int
	name    string
	sql     string            // every engine's SQL, or
	own     map[engine]string // each engine's own, where their SQL differs
}

// sqlFor returns the migration's SQL for engine e.
func (m migration) sqlFor(e engine) string {
	if s, ok := m.own[e]; ok {
		return s
	}
	return m.sql
}

// migrations are the schema's versions in order. SQLite's version 1 is the
// schema its files had before versioned migrations; its IF NOT EXISTS clauses
// make it a no-op on a file written then, which is how such a file is adopted
// in place. In PostgreSQL text keys use the "C" collation so names sort and
// compare bytewise, as they do in SQLite, and counters are BIGINT.
var migrations = []migration{{version: 1, name: "baseline", own: map[engine]string{sqliteSQL: `
CREATE TABLE IF NOT EXISTS episodes (
  episode_id TEXT PRIMARY KEY, run TEXT NOT NULL, kind TEXT NOT NULL, pass INTEGER NOT NULL,
  stage INTEGER NOT NULL, idx INTEGER NOT NULL, case_id TEXT NOT NULL, condition TEXT NOT NULL,
  record TEXT NOT NULL, trace TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS episodes_run ON episodes(run, idx);
CREATE TABLE IF NOT EXISTS turns (
  episode_id TEXT NOT NULL, turn INTEGER NOT NULL, decision TEXT, event TEXT,
  PRIMARY KEY (episode_id, turn));
CREATE TABLE IF NOT EXISTS traces (episode_id TEXT PRIMARY KEY, trace TEXT NOT NULL, grade TEXT);
CREATE TABLE IF NOT EXISTS run_results (run TEXT PRIMARY KEY, kind TEXT NOT NULL, result TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, reply TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS proposals (episode_id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS usage (episode_id TEXT NOT NULL, role TEXT NOT NULL, calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, cache_hits INTEGER NOT NULL, PRIMARY KEY (episode_id, role));
CREATE TABLE IF NOT EXISTS runs (run TEXT PRIMARY KEY, kind TEXT NOT NULL, workflow_id TEXT NOT NULL, spec TEXT NOT NULL, created TEXT NOT NULL);
`, postgresSQL: `
CREATE TABLE episodes (
  episode_id TEXT COLLATE "C" PRIMARY KEY, run TEXT COLLATE "C" NOT NULL, kind TEXT NOT NULL, pass INTEGER NOT NULL,
  stage INTEGER NOT NULL, idx INTEGER NOT NULL, case_id TEXT NOT NULL, condition TEXT NOT NULL,
  record TEXT NOT NULL, trace TEXT NOT NULL);
CREATE INDEX episodes_run ON episodes(run, idx);
CREATE TABLE turns (
  episode_id TEXT COLLATE "C" NOT NULL, turn INTEGER NOT NULL, decision TEXT, event TEXT,
  PRIMARY KEY (episode_id, turn));
CREATE TABLE traces (episode_id TEXT COLLATE "C" PRIMARY KEY, trace TEXT NOT NULL, grade TEXT);
CREATE TABLE run_results (run TEXT COLLATE "C" PRIMARY KEY, kind TEXT NOT NULL, result TEXT NOT NULL);
CREATE TABLE llm_cache (key TEXT COLLATE "C" PRIMARY KEY, reply TEXT NOT NULL);
CREATE TABLE proposals (episode_id TEXT COLLATE "C" PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE usage (episode_id TEXT COLLATE "C" NOT NULL, role TEXT COLLATE "C" NOT NULL, calls BIGINT NOT NULL,
  prompt_tokens BIGINT NOT NULL, completion_tokens BIGINT NOT NULL, cost_usd DOUBLE PRECISION NOT NULL,
  cache_hits BIGINT NOT NULL, PRIMARY KEY (episode_id, role));
CREATE TABLE runs (run TEXT COLLATE "C" PRIMARY KEY, kind TEXT NOT NULL, workflow_id TEXT NOT NULL, spec TEXT NOT NULL,
  created TEXT COLLATE "C" NOT NULL);
`}}, {version: 2, name: "usage model", sql: `
ALTER TABLE usage ADD COLUMN model TEXT NOT NULL DEFAULT '';
`}, {version: 3, name: "activity time", own: map[engine]string{sqliteSQL: `
CREATE TABLE times (episode_id TEXT NOT NULL, phase TEXT NOT NULL, ms REAL NOT NULL, PRIMARY KEY (episode_id, phase));
`, postgresSQL: `
CREATE TABLE times (episode_id TEXT COLLATE "C" NOT NULL, phase TEXT COLLATE "C" NOT NULL, ms DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (episode_id, phase));
`}}, {version: 4, name: "usage extra fields", sql: `
ALTER TABLE usage ADD COLUMN extra_fields INTEGER NOT NULL DEFAULT 0;
`}, {version: 5, name: "run claims and shared settings", own: map[engine]string{sqliteSQL: `
ALTER TABLE runs ADD COLUMN claim TEXT NOT NULL DEFAULT '';
CREATE TABLE settings (ref TEXT PRIMARY KEY, body TEXT NOT NULL);
`, postgresSQL: `
ALTER TABLE runs ADD COLUMN claim TEXT NOT NULL DEFAULT '';
CREATE TABLE settings (ref TEXT COLLATE "C" PRIMARY KEY, body TEXT NOT NULL);
`}}, {version: 6, name: "run completion time", sql: `
ALTER TABLE run_results ADD COLUMN completed TEXT NOT NULL DEFAULT '';
`}, {version: 7, name: "usage cached tokens and endpoint limits", own: map[engine]string{sqliteSQL: `
ALTER TABLE usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint TEXT NOT NULL DEFAULT '';
ALTER TABLE usage ADD COLUMN rate_limited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN waited_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN limit_at INTEGER NOT NULL DEFAULT 0;
`, postgresSQL: `
ALTER TABLE usage ADD COLUMN cached_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint TEXT NOT NULL DEFAULT '';
ALTER TABLE usage ADD COLUMN rate_limited BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN waited_ms DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint_limit BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN limit_at BIGINT NOT NULL DEFAULT 0;
`}}, {version: 8, name: "run terminations", sql: `
ALTER TABLE runs ADD COLUMN terminated TEXT NOT NULL DEFAULT '';
`}, {version: 9, name: "usage provenance", sql: `
ALTER TABLE usage ADD COLUMN served_models TEXT NOT NULL DEFAULT '';
ALTER TABLE usage ADD COLUMN fingerprints TEXT NOT NULL DEFAULT '';
`}}

// Latest is the schema version this build writes and reads.
func Latest() int { return migrations[len(migrations)-1].version }

// Migrate brings the store's schema to the latest version, all in one
// transaction: a failed migration leaves the store as it was. A store of a
// newer schema than this build knows is an error.
func Migrate(ctx context.Context, db *sql.DB, c Config) error {
	return MigrateTo(ctx, db, c, Latest())
}

// MigrateTo brings the store's schema to version (at most the latest), as a
// build of that version left it: Migrate, and the tests of migrations.
func MigrateTo(ctx context.Context, db *sql.DB, c Config, version int) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	// The transaction is opened by statements, not database/sql's Begin:
	// SQLite's BEGIN IMMEDIATE has no TxOptions.
	for _, q := range c.Dialect.begin {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	defer func() {
		if err != nil {
			// The transaction failed already; the error that says why is err.
			_, _ = conn.ExecContext(context.Background(), `ROLLBACK`)
		}
	}()
	current, err := appliedVersion(ctx, conn, c)
	if err != nil {
		return err
	}
	for _, m := range migrations[:version] {
		if m.version <= current {
			continue
		}
		if err := apply(ctx, conn, c.Dialect, m); err != nil {
			return fmt.Errorf("migrate: version %d (%s): %w", m.version, m.name, err)
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// appliedVersion creates the table of applied versions if it is missing and
// returns the latest version applied, refusing one newer than this build's.
func appliedVersion(ctx context.Context, conn *sql.Conn, c Config) (int, error) {
	if _, err := conn.ExecContext(ctx, c.Dialect.versions); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	return current, schemaVersion(c.Dependency, current, false, "")
}

// apply runs one migration and records it.
func apply(ctx context.Context, conn *sql.Conn, d Dialect, m migration) error {
	if _, err := conn.ExecContext(ctx, m.sqlFor(d.engine)); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, d.bind(`INSERT INTO schema_migrations(version, name, applied) VALUES($1,$2,`+d.now+`)`), m.version, m.name)
	return err
}

// Readable checks, without writing, that the store holds the schema this
// build reads: the latest version.
func Readable(ctx context.Context, db *sql.DB, c Config) error {
	var current int // 0: a store never migrated, without the table
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil &&
		fault.Of(c.Fail(err)).Class != fault.Schema {
		return fmt.Errorf("read schema version: %w", err)
	}
	return schemaVersion(c.Dependency, current, true, c.MigrateHint)
}

// schemaVersion checks a store's schema version against the latest this
// build knows, for a store of dependency: a newer one needs a newer clinevo;
// for a reader (which does not migrate) an older one needs migrating first,
// which migrate says how to do.
func schemaVersion(dependency string, current int, reader bool, migrate string) error {
	switch latest := Latest(); {
	case current > latest:
		return fault.Permanent(dependency, fault.Schema, "open it with a newer clinevo",
			fmt.Errorf("migrate: schema version %d is newer than this clinevo knows (%d)", current, latest))
	case reader && current < latest:
		return fault.Permanent(dependency, fault.Schema, migrate+"; readers open it read-only",
			fmt.Errorf("schema version %d is older than this clinevo reads (%d)", current, latest))
	}
	return nil
}
