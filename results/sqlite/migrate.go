package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/internal/sqlitefault"
	"github.com/clinevo/clinevo/results/internal/codec"
)

// migration is one version of the schema. A released migration never changes:
// a change of schema is a new migration at the end of the list.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the schema's versions in order. Version 1 is the schema the
// store had before versioned migrations; its IF NOT EXISTS clauses make it a
// no-op on a file written then, which is how such a file is adopted in place.
var migrations = []migration{{version: 1, name: "baseline", sql: `
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
`}, {version: 2, name: "usage model", sql: `
ALTER TABLE usage ADD COLUMN model TEXT NOT NULL DEFAULT '';
`}, {version: 3, name: "activity time", sql: `
CREATE TABLE times (episode_id TEXT NOT NULL, phase TEXT NOT NULL, ms REAL NOT NULL, PRIMARY KEY (episode_id, phase));
`}, {version: 4, name: "usage extra fields", sql: `
ALTER TABLE usage ADD COLUMN extra_fields INTEGER NOT NULL DEFAULT 0;
`}, {version: 5, name: "run claims and shared settings", sql: `
ALTER TABLE runs ADD COLUMN claim TEXT NOT NULL DEFAULT '';
CREATE TABLE settings (ref TEXT PRIMARY KEY, body TEXT NOT NULL);
`}, {version: 6, name: "run completion time", sql: `
ALTER TABLE run_results ADD COLUMN completed TEXT NOT NULL DEFAULT '';
`}, {version: 7, name: "usage cached tokens and endpoint limits", sql: `
ALTER TABLE usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint TEXT NOT NULL DEFAULT '';
ALTER TABLE usage ADD COLUMN rate_limited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN waited_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN limit_at INTEGER NOT NULL DEFAULT 0;
`}, {version: 8, name: "run terminations", sql: `
ALTER TABLE runs ADD COLUMN terminated TEXT NOT NULL DEFAULT '';
`}}

// migrate applies the migrations newer than the file's version, all in one
// transaction: a failed migration leaves the file as it was.
func migrate(ctx context.Context, db *sql.DB, ms []migration) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	// BEGIN IMMEDIATE takes the write lock before reading the version, so two
	// processes opening one file apply each migration once.
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if err != nil {
			// The transaction failed already; the error that says why is err.
			_, _ = conn.ExecContext(context.Background(), `ROLLBACK`)
		}
	}()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := codec.SchemaVersion(Dependency, current, ms[len(ms)-1].version, false, ""); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := conn.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate: version %d (%s): %w", m.version, m.name, err)
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied) VALUES(?,?,?)`,
			m.version, m.name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return fmt.Errorf("migrate: version %d (%s): %w", m.version, m.name, err)
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// readable checks, without writing, that a file holds the schema this build
// reads: the latest version of ms.
func readable(ctx context.Context, db *sql.DB, ms []migration) error {
	var current int // 0: a file from before versioned migrations, without the table
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil &&
		sqlitefault.Class(err) != fault.Schema {
		return fmt.Errorf("read schema version: %w", err)
	}
	return codec.SchemaVersion(Dependency, current, ms[len(ms)-1].version, true, "start a worker (clinevo worker or clinevo dev) of this version once to migrate it")
}
