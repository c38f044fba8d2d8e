package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/clinevo/clinevo/results/internal/codec"
)

// migration is one version of the schema. A released migration never changes:
// a change of schema is a new migration at the end of the list.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the schema's versions in order. Text keys use the "C"
// collation so names sort and compare bytewise, as they do in SQLite.
var migrations = []migration{{version: 1, name: "baseline", sql: `
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
`}, {version: 2, name: "usage model", sql: `
ALTER TABLE usage ADD COLUMN model TEXT NOT NULL DEFAULT '';
`}, {version: 3, name: "activity time", sql: `
CREATE TABLE times (episode_id TEXT COLLATE "C" NOT NULL, phase TEXT COLLATE "C" NOT NULL, ms DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (episode_id, phase));
`}, {version: 4, name: "usage extra fields", sql: `
ALTER TABLE usage ADD COLUMN extra_fields INTEGER NOT NULL DEFAULT 0;
`}, {version: 5, name: "run claims and shared settings", sql: `
ALTER TABLE runs ADD COLUMN claim TEXT NOT NULL DEFAULT '';
CREATE TABLE settings (ref TEXT COLLATE "C" PRIMARY KEY, body TEXT NOT NULL);
`}, {version: 6, name: "run completion time", sql: `
ALTER TABLE run_results ADD COLUMN completed TEXT NOT NULL DEFAULT '';
`}, {version: 7, name: "usage cached tokens and endpoint limits", sql: `
ALTER TABLE usage ADD COLUMN cached_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint TEXT NOT NULL DEFAULT '';
ALTER TABLE usage ADD COLUMN rate_limited BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN waited_ms DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN endpoint_limit BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN limit_at BIGINT NOT NULL DEFAULT 0;
`}, {version: 8, name: "run terminations", sql: `
ALTER TABLE runs ADD COLUMN terminated TEXT NOT NULL DEFAULT '';
`}}

// migrationLock is the advisory lock key that serialises migrations: workers
// starting together apply each migration once.
const migrationLock = 0x636c6e76 // "clnv"

// migrate applies the migrations newer than the database's version, all in one
// transaction: a failed migration leaves the database as it was.
func migrate(ctx context.Context, pool *pgxpool.Pool, ms []migration) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// After Commit, Rollback is a no-op; before it, the error that says why is
	// the one returned below.
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := codec.SchemaVersion(Dependency, current, ms[len(ms)-1].version, false, ""); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate: version %d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations(version, name) VALUES($1,$2)`, m.version, m.name); err != nil {
			return fmt.Errorf("migrate: version %d (%s): %w", m.version, m.name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// readable checks, without writing, that the database holds the schema this
// build reads: the latest version of ms.
func readable(ctx context.Context, pool *pgxpool.Pool, ms []migration) error {
	var current int // 0: a database clinevo never migrated, without the table
	var pe *pgconn.PgError
	if err := pool.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil &&
		!(errors.As(err, &pe) && pe.Code == "42P01") { // undefined_table
		return fmt.Errorf("read schema version: %w", err)
	}
	return codec.SchemaVersion(Dependency, current, ms[len(ms)-1].version, true, "start a worker (clinevo worker) of this version once to migrate it")
}
