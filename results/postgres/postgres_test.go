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
		require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8}, query[int](t, c, `SELECT version FROM schema_migrations ORDER BY version`))
	}
	query[int](t, c, `INSERT INTO schema_migrations(version, name) VALUES(99, 'from the future') RETURNING version`)
	_, err := postgres.Open(ctx, c)
	require.ErrorContains(t, err, "schema version 99 is newer than this clinevo knows (8)")
}

// TestMigratesVersion6: a database at schema version 6 (before cached
// tokens and endpoint limits were stored) keeps its usage through the
// migration to 7, the new columns read 0, and the migrated database takes
// and sums them.
func TestMigratesVersion6(t *testing.T) {
	dsn := pgtest.Fresh(t)
	ctx := context.Background()
	c := postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)}
	require.NoError(t, postgres.MigrateTo(ctx, c, 6))
	require.Equal(t, []int{1, 2, 3, 4, 5, 6}, query[int](t, c, `SELECT version FROM schema_migrations ORDER BY version`))
	// A row as a version-6 build wrote it: no column of version 7 exists yet.
	query[string](t, c, `INSERT INTO usage(episode_id, role, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, model, extra_fields)
		VALUES('old/p1/s1/e1-a', 'doctor', 3, 300, 40, 0.75, 1, 'm-doc', 2) RETURNING role`)
	require.Empty(t, query[string](t, c, `SELECT column_name::TEXT FROM information_schema.columns WHERE table_name='usage' AND column_name='cached_tokens'
		AND table_schema=current_schema()`), "version 6 has no cached_tokens column")

	s, err := postgres.Open(ctx, c)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8}, query[int](t, c, `SELECT version FROM schema_migrations ORDER BY version`))
	old := results.Usage{Model: "m-doc", Calls: 3, PromptTokens: 300, CompletionTokens: 40, CostUSD: 0.75, CacheHits: 1, ExtraFields: 2}
	u, err := s.RunUsage(ctx, "old")
	require.NoError(t, err)
	require.Equal(t, map[string]results.Usage{"doctor": old}, u, "the old row, its new columns 0")
	require.NoError(t, s.AddUsage(ctx, "old/p1/s1/e1-a", results.Usage{Calls: 1, PromptTokens: 100, CachedTokens: 64,
		Endpoint: "http://m/v1 m-doc", RateLimited: 1, WaitedMS: 250, Limit: 3, LimitAt: 1000}, "doctor"))
	u, err = s.UsageOf(ctx, "old/p1/s1/e1-a")
	require.NoError(t, err)
	// 3+1 calls, 300+100 prompt tokens; the rest of the old row as it was.
	require.Equal(t, map[string]results.Usage{"doctor": {Model: "m-doc", Calls: 4, PromptTokens: 400, CompletionTokens: 40, CostUSD: 0.75, CacheHits: 1,
		ExtraFields: 2, CachedTokens: 64, Endpoint: "http://m/v1 m-doc", RateLimited: 1, WaitedMS: 250, Limit: 3, LimitAt: 1000}}, u)
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
