// Package postgres is the results store on PostgreSQL (through pgx): one
// database shared by every worker and the CLI, so an episode whose activities
// land on several machines finds its own turns. Concurrent writers from many
// processes are safe: every write is a single upsert statement. The queries
// and migrations are results/internal/sqlstore's, in its PostgreSQL dialect;
// this package connects, keeps the password out of every DSN, and classifies
// the database's failures.
package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/internal/sqlstore"
)

var _ results.Store = (*Store)(nil)

// Config points at a database. The DSN never holds the password: it comes from
// the environment (the variable named by results.postgres.password_env) and
// lives only in memory, so it reaches no file, history or log we write.
type Config struct {
	DSN      string // URL (postgres://user@host:5432/db) or key=value form, without a password
	Password string // empty: whatever pgx finds itself (PGPASSWORD, ~/.pgpass)
}

// String shows the DSN only, so a logged Config never shows the password.
func (c Config) String() string { return c.DSN }

var kvPassword = regexp.MustCompile(`(^|\s)password\s*=`)

// CheckDSN returns an error if a DSN holds a password. Its messages never
// repeat the DSN, which would repeat the password.
func CheckDSN(dsn string) error {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return errors.New("the DSN is not a valid postgres:// URL")
		}
		if _, set := u.User.Password(); set || u.Query().Has("password") {
			return errors.New("the DSN holds a password; give it through the environment variable named by results.postgres.password_env")
		}
		return nil
	}
	if kvPassword.MatchString(dsn) {
		return errors.New("the DSN holds a password; give it through the environment variable named by results.postgres.password_env")
	}
	return nil
}

// Dependency names this store in failures and waits.
const Dependency = "results/postgres"

// Store is a results store in a PostgreSQL database.
type Store struct {
	*sqlstore.Store
	pool *pgxpool.Pool
}

// config is the shared store's configuration.
var config = sqlstore.Config{
	Dialect:     sqlstore.PostgreSQL,
	Dependency:  Dependency,
	Fail:        classify,
	MigrateHint: "start a worker (clinevo worker) of this version once to migrate it",
}

// Open connects to the database and migrates its schema to the latest version
// (creating it on first use). A database of a newer schema than this build
// knows is an error.
func Open(ctx context.Context, c Config) (*Store, error) {
	return open(ctx, c, false)
}

// OpenReader connects for reading only: every transaction is read-only and
// nothing is migrated. A database of another schema version than this
// build's is an error saying what to do.
func OpenReader(ctx context.Context, c Config) (*Store, error) {
	return open(ctx, c, true)
}

func open(ctx context.Context, c Config, reader bool) (*Store, error) {
	pool, db, err := connect(ctx, c, reader)
	if err != nil {
		return nil, err
	}
	prepare := sqlstore.Migrate
	if reader {
		prepare = sqlstore.Readable
	}
	if err := prepare(ctx, db, config); err != nil {
		db.Close()
		pool.Close()
		return nil, classify(fmt.Errorf("results: open postgres: %w", err))
	}
	return &Store{Store: sqlstore.New(db, config), pool: pool}, nil
}

// connect opens a pool of connections to the database (pgxpool, so a DSN's
// pool_* settings hold) and database/sql's handle on it.
func connect(ctx context.Context, c Config, reader bool) (*pgxpool.Pool, *sql.DB, error) {
	if err := CheckDSN(c.DSN); err != nil {
		return nil, nil, fmt.Errorf("results: open postgres: %w", err)
	}
	pc, err := pgxpool.ParseConfig(c.DSN)
	if err != nil {
		return nil, nil, fmt.Errorf("results: open postgres: %w", err) // pgconn redacts any password in the message
	}
	if c.Password != "" {
		pc.ConnConfig.Password = c.Password
	}
	if reader {
		pc.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, nil, classify(fmt.Errorf("results: open postgres: %w", err))
	}
	db := stdlib.OpenDBFromPool(pool)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		pool.Close()
		return nil, nil, classify(fmt.Errorf("results: open postgres: %w", err))
	}
	return pool, db, nil
}

// Close closes every connection.
func (s *Store) Close() error {
	err := s.Store.Close()
	s.pool.Close()
	return err
}

// classify tags err with its fault class: connection exceptions, a server
// shutting down or starting, exhausted resources and serialization failures
// are unavailable, a cancelled statement a timeout; a refused login or a
// missing privilege is unauthorized, a missing database or a read-only server
// invalid, an undefined table or column a schema fault; what the driver and
// the standard library say about connections is classified as fault.Network
// does, and a connection database/sql found broken before the statement
// was sent, on every try, unavailable. A message never holds the password
// (pgconn redacts it).
func classify(err error) error {
	var f *fault.Error
	if err == nil || errors.As(err, &f) {
		return err
	}
	permanent := func(c fault.Class, fix string) error { return fault.Permanent(Dependency, c, fix, err) }
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch code := pe.Code; {
		case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), code == "57P01", code == "57P02", code == "57P03",
			code == "40001", code == "40P01":
			return fault.New(Dependency, fault.Unavailable, err)
		case code == "57014":
			return fault.New(Dependency, fault.Timeout, err)
		case strings.HasPrefix(code, "28"), code == "42501":
			return permanent(fault.Unauthorized, "check the role in results.postgres.dsn, its privileges, and the password in the variable results.postgres.password_env names")
		case code == "3D000":
			return permanent(fault.Invalid, "results.postgres.dsn names a database that does not exist: create it or correct the DSN")
		case code == "25006":
			return permanent(fault.Invalid, "the database accepts no writes (a standby?): point results.postgres.dsn at the primary")
		case strings.HasPrefix(code, "42"):
			return permanent(fault.Schema, "start a worker (clinevo worker) of this version once to migrate the database")
		}
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var ce *pgconn.ConnectError
	switch {
	case pgconn.Timeout(err):
		return fault.New(Dependency, fault.Timeout, err)
	case errors.As(err, &syn) || errors.As(err, &typ):
		return permanent(fault.Schema, "the database holds a value this clinevo cannot read: open it with the clinevo that wrote it")
	}
	if c, ok := fault.Network(err); ok {
		return fault.New(Dependency, c, err)
	}
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) {
		return fault.New(Dependency, fault.Unavailable, err)
	}
	return fault.New(Dependency, fault.Unknown, err)
}
