package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/results/postgres/pgtest"
	"github.com/clinevo/clinevo/results/resultstest"
)

func TestConformance(t *testing.T) {
	pgtest.Config(t) // skips the whole suite without a database
	resultstest.Run(t, resultstest.Backend{
		Fresh: func(t *testing.T) string { return pgtest.Fresh(t) },
		Open: func(ctx context.Context, dsn string) (results.Store, error) {
			return postgres.Open(ctx, postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)})
		},
		OpenReader: func(ctx context.Context, dsn string) (results.Store, error) {
			return postgres.OpenReader(ctx, postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)})
		},
	})
}

func TestCheckDSN(t *testing.T) {
	const pw = "s3cret-Pw"
	for _, c := range []struct {
		dsn  string
		pass bool
	}{
		{"postgres://clinevo@db:5432/clinevo", true},
		{"postgresql://clinevo@db/clinevo?sslmode=verify-full&application_name=worker", true},
		{"host=db port=5432 user=clinevo dbname=clinevo", true},
		{"postgres://clinevo:" + pw + "@db:5432/clinevo", false},
		{"postgres://clinevo@db/clinevo?password=" + pw, false},
		{"host=db user=clinevo password=" + pw + " dbname=clinevo", false},
		{"password = '" + pw + "' host=db", false},
	} {
		t.Run(c.dsn, func(t *testing.T) {
			err := postgres.CheckDSN(c.dsn)
			if c.pass {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, "results.postgres.password_env")
			require.NotContains(t, err.Error(), pw, "the message never repeats the password")
			_, err = postgres.Open(context.Background(), postgres.Config{DSN: c.dsn})
			require.Error(t, err, "Open refuses it too")
			require.NotContains(t, err.Error(), pw)
		})
	}
	require.Equal(t, "postgres://clinevo@db/clinevo", fmt.Sprint(postgres.Config{DSN: "postgres://clinevo@db/clinevo", Password: pw}))
	require.NotContains(t, fmt.Sprintf("%+v", &postgres.Config{DSN: "postgres://clinevo@db/clinevo", Password: pw}), pw)
}

func TestWrongPassword(t *testing.T) {
	c := pgtest.Config(t)
	const wrong = "not-the-password-4c1d"
	_, err := postgres.Open(context.Background(), postgres.Config{DSN: c.DSN, Password: wrong})
	require.Error(t, err)
	require.ErrorContains(t, err, "results: open postgres")
	require.NotContains(t, err.Error(), wrong)
}

func TestMigrations(t *testing.T) {
	dsn := pgtest.Fresh(t)
	ctx := context.Background()
	c := postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)}
	for range 2 { // the second open finds nothing to do
		s, err := postgres.Open(ctx, c)
		require.NoError(t, err)
		require.NoError(t, s.Close())
		require.Equal(t, []int{1, 2, 3, 4, 5, 6}, query[int](t, c, `SELECT version FROM schema_migrations ORDER BY version`))
	}
	query[int](t, c, `INSERT INTO schema_migrations(version, name) VALUES(99, 'from the future') RETURNING version`)
	_, err := postgres.Open(ctx, c)
	require.ErrorContains(t, err, "schema version 99 is newer than this clinevo knows (6)")
}

// query runs one statement on its own connection and returns its first column.
func query[T any](t *testing.T, c postgres.Config, sql string) []T {
	t.Helper()
	ctx := context.Background()
	pc, err := pgx.ParseConfig(c.DSN)
	require.NoError(t, err)
	pc.Password = c.Password
	conn, err := pgx.ConnectConfig(ctx, pc)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[T])
	require.NoError(t, err)
	return out
}
