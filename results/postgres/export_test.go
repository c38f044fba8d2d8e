package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// MigrateTo brings a database to schema version v (at most the latest): a
// database as a build of that version left it, for migration tests.
func MigrateTo(ctx context.Context, c Config, v int) error {
	pc, err := pgxpool.ParseConfig(c.DSN)
	if err != nil {
		return err
	}
	pc.ConnConfig.Password = c.Password
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return err
	}
	defer pool.Close()
	return migrate(ctx, pool, migrations[:v])
}
