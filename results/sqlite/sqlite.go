// Package sqlite is the embedded results store: one SQLite file (WAL) under the
// data directory, the default backend. Several processes may open the same
// file; SQLite's lock serialises their writes. The queries and migrations are
// results/internal/sqlstore's, in its SQLite dialect; this package opens the
// file and classifies its failures.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/clinevo/clinevo/internal/sqlitefault"
	"github.com/clinevo/clinevo/internal/sqliteuri"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/internal/sqlstore"
)

var _ results.Store = (*Store)(nil)

// Dependency names this store in failures and waits.
const Dependency = "results/sqlite"

// Store is a results store in a SQLite file.
type Store struct{ *sqlstore.Store }

// config is the shared store's configuration for the file at path.
func config(path string) sqlstore.Config {
	return sqlstore.Config{
		Dialect:     sqlstore.SQLite,
		Dependency:  Dependency,
		Fail:        func(err error) error { return sqlitefault.Tag(Dependency, path, err) },
		MigrateHint: "start a worker (clinevo worker or clinevo dev) of this version once to migrate it",
	}
}

// Open opens or creates the results file at path and migrates its schema to
// the latest version (a file written before versioned migrations is migrated
// in place). A file of a newer schema than this build knows is an error.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, "_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)", func(ctx context.Context, db *sql.DB, c sqlstore.Config) error {
		if err := sqlitefault.WAL(ctx, db); err != nil {
			return err
		}
		return sqlstore.Migrate(ctx, db, c)
	})
}

// OpenReader opens an existing results file read-only, for a process that
// only reads (the CLI's lookups, the viewer): it writes nothing, not even a
// migration, so a file the reader may not write is read all the same. A file
// of another schema version than this build's is an error saying what to do.
func OpenReader(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, "mode=ro&_pragma=busy_timeout(10000)", sqlstore.Readable)
}

// open opens the file with the URI's parameters and prepares its schema.
func open(ctx context.Context, path, params string, prepare func(context.Context, *sql.DB, sqlstore.Config) error) (*Store, error) {
	if err := sqlitefault.CheckFile(Dependency, path); err != nil {
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", sqliteuri.File(path, params))
	if err != nil {
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway, and a second connection of
	// the same process would only wait on the first one's lock.
	db.SetMaxOpenConns(1)
	c := config(path)
	if err := prepare(ctx, db, c); err != nil {
		db.Close()
		return nil, c.Fail(fmt.Errorf("results: open %s: %w", path, err))
	}
	return &Store{sqlstore.New(db, c)}, nil
}
