// Package pgtest gives tests a PostgreSQL database: the one .ci/run prepares,
// named by CLINEVO_TEST_POSTGRES_DSN with its password in
// CLINEVO_TEST_POSTGRES_PASSWORD. Without them the tests skip, unless CI is set.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/clinevo/clinevo/results/postgres"
)

// The variables .ci/run exports.
const (
	EnvDSN      = "CLINEVO_TEST_POSTGRES_DSN"      // without the password
	EnvPassword = "CLINEVO_TEST_POSTGRES_PASSWORD" // the role's password
)

// Config returns the test database, or skips the test when none is set (and
// fails it under CI, where the database is required).
func Config(t testing.TB) postgres.Config {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		msg := "PostgreSQL tests need a database: run .ci/run (it starts the Debian cluster with `pg_ctlcluster 15 main start` " +
			"and creates a role and a database), or set " + EnvDSN + " to a DSN without the password " +
			"(postgres://clinevo_test@127.0.0.1:5432/clinevo_test) and " + EnvPassword + " to its password"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return postgres.Config{DSN: dsn, Password: os.Getenv(EnvPassword)}
}

// Fresh creates a schema of its own for one test (dropped when the test ends)
// in the test database and returns a DSN whose search_path is that schema, so
// tests sharing the database never see each other's tables.
func Fresh(t testing.TB) string {
	t.Helper()
	c := Config(t)
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	schema := "t_" + hex.EncodeToString(b)
	exec := func(sql string) {
		t.Helper()
		ctx := context.Background()
		pc, err := pgx.ParseConfig(c.DSN)
		if err != nil {
			t.Fatal(err)
		}
		if c.Password != "" {
			pc.Password = c.Password
		}
		conn, err := pgx.ConnectConfig(ctx, pc)
		if err != nil {
			t.Fatalf("pgtest: connect to %s: %v", c.DSN, err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("pgtest: %s: %v", sql, err)
		}
	}
	exec("CREATE SCHEMA " + schema)
	t.Cleanup(func() { exec("DROP SCHEMA " + schema + " CASCADE") })
	return WithSearchPath(t, c.DSN, schema)
}

// WithSearchPath returns dsn with its search_path set to schema.
func WithSearchPath(t testing.TB, dsn, schema string) string {
	t.Helper()
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL: %v", EnvDSN, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// DB opens the database at dsn (with the password of EnvPassword) without the
// store, to read or write it as another build would; it is closed when the
// test ends.
func DB(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	pc, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	pc.Password = os.Getenv(EnvPassword)
	db := stdlib.OpenDB(*pc)
	t.Cleanup(func() { db.Close() })
	return db
}
