package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

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
		MigrateTo: func(ctx context.Context, dsn string, v int) error {
			return postgres.MigrateTo(ctx, postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)}, v)
		},
		Raw: func(t *testing.T, dsn string) *sql.DB { return pgtest.DB(t, dsn) },
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
	db := pgtest.DB(t, dsn)
	for range 2 { // the second open finds nothing to do
		s, err := postgres.Open(ctx, c)
		require.NoError(t, err)
		require.NoError(t, s.Close())
		require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, resultstest.Versions(t, db))
	}
	_, err := db.Exec(`INSERT INTO schema_migrations(version, name) VALUES(99, 'from the future')`)
	require.NoError(t, err)
	_, err = postgres.Open(ctx, c)
	require.ErrorContains(t, err, "schema version 99 is newer than this clinevo knows (9)")
}

// TestNewDatabaseHasTheSchemaOfVersion7: a database this build creates holds
// the columns and indexes that the version-7 build created
// (testdata/README.md), so a database that build wrote is read unchanged,
// with version 8's one column (runs.terminated) after runs.claim and
// version 9's two (usage.served_models, usage.fingerprints) after
// usage.limit_at.
func TestNewDatabaseHasTheSchemaOfVersion7(t *testing.T) {
	dsn := pgtest.Fresh(t)
	s, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	db := pgtest.DB(t, dsn)
	got := resultstest.Column[string](t, db, `SELECT table_name || '.' || column_name || ' ' || data_type || ' collate=' || COALESCE(collation_name, '-') ||
		' null=' || is_nullable || ' default=' || COALESCE(column_default, '-') FROM information_schema.columns
		WHERE table_schema=current_schema() ORDER BY table_name, ordinal_position`)
	got = append(got, resultstest.Column[string](t, db, `SELECT replace(indexdef, current_schema() || '.', '') FROM pg_indexes
		WHERE schemaname=current_schema() ORDER BY indexname`)...)
	raw, err := os.ReadFile("testdata/schema-v7.txt")
	require.NoError(t, err)
	v7 := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	claim := slices.Index(v7, "runs.claim text collate=- null=NO default=''::text")
	require.GreaterOrEqual(t, claim, 0, "schema-v7.txt has runs.claim")
	want := slices.Insert(slices.Clone(v7), claim+1, "runs.terminated text collate=- null=NO default=''::text")
	limitAt := slices.Index(want, "usage.limit_at bigint collate=- null=NO default=0")
	require.GreaterOrEqual(t, limitAt, 0, "schema-v7.txt has usage.limit_at")
	want = slices.Insert(want, limitAt+1, "usage.served_models text collate=- null=NO default=''::text",
		"usage.fingerprints text collate=- null=NO default=''::text")
	require.Equal(t, want, got)
}
