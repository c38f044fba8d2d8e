package sqlite

import (
	"context"
	"database/sql"
)

// MigrateTo brings a results file to schema version v (at most the latest):
// a file as a build of that version wrote it, for migration tests.
func MigrateTo(ctx context.Context, path string, v int) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	return migrate(ctx, db, migrations[:v])
}
