package postgres

import (
	"context"

	"github.com/clinevo/clinevo/results/internal/sqlstore"
)

// MigrateTo brings a database to schema version v (at most the latest): a
// database as a build of that version left it, for migration tests.
func MigrateTo(ctx context.Context, c Config, v int) error {
	pool, db, err := connect(ctx, c, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	defer db.Close()
	return sqlstore.MigrateTo(ctx, db, config, v)
}
