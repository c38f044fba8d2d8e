package sqlite

import (
	"context"
	"database/sql"

	"github.com/clinevo/clinevo/internal/sqliteuri"
	"github.com/clinevo/clinevo/results/internal/sqlstore"
)

// MigrateTo brings a results file to schema version v (at most the latest):
// a file as a build of that version wrote it, for migration tests.
func MigrateTo(ctx context.Context, path string, v int) error {
	db, err := sql.Open("sqlite", sqliteuri.File(path, ""))
	if err != nil {
		return err
	}
	defer db.Close()
	return sqlstore.MigrateTo(ctx, db, config(path), v)
}
