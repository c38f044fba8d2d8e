package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
)

var _ results.Store = (*Store)(nil)

// Config is what a backend gives the shared store: its engine's dialect, its
// name in failures, how its engine's failures are classified, and how an
// operator migrates a store a reader finds too old.
type Config struct {
	Dialect     Dialect
	Dependency  string            // results/sqlite, results/postgres
	Fail        func(error) error // tags an engine failure with its fault class; nil stays nil
	MigrateHint string
}

// Store is a results store in a SQL database. Every write is one statement,
// so writers in several processes need no lock of their own: the engine's
// row locks (PostgreSQL) or file lock (SQLite) serialise them.
type Store struct {
	db *sql.DB
	c  Config
}

// New returns the store on db; it neither checks nor migrates the schema
// (Migrate, Readable).
func New(db *sql.DB, c Config) *Store { return &Store{db: db, c: c} }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// fail classifies a failure of the database; nil stays nil.
func (s *Store) fail(err error) error { return s.c.Fail(err) }

func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.c.Dialect.bind(query), args...)
}

func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, s.c.Dialect.bind(query), args...)
}

func (s *Store) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.c.Dialect.bind(query), args...)
}

// body returns the one text column a query selects; no row, or a NULL, is an
// error wrapping results.ErrNotFound. what names the operation and its key
// in errors.
func (s *Store) body(ctx context.Context, what, query string, args ...any) (string, error) {
	var b sql.NullString
	err := s.queryRow(ctx, query, args...).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !b.Valid) {
		return "", fmt.Errorf("results: %s: %w", what, results.ErrNotFound)
	}
	if err != nil {
		return "", s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	return b.String, nil
}

// load decodes into v the JSON body a query selects for key; no row, or a
// NULL, is an error wrapping results.ErrNotFound.
func (s *Store) load(ctx context.Context, what, query string, key, v any) error {
	body, err := s.body(ctx, what, query, key)
	if err != nil {
		return err
	}
	return s.decode(what, body, v)
}

// decode decodes a stored JSON body into v; what names the operation and its
// key in errors.
func (s *Store) decode(what, body string, v any) error {
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	return nil
}

// PutDecision implements results.TurnLog. The upsert takes the row lock, so of
// two workers racing on one turn the second sees and returns the first's value.
func (s *Store) PutDecision(ctx context.Context, episodeID string, turn int, d json.RawMessage) (json.RawMessage, error) {
	var out string
	if err := s.queryRow(ctx, `INSERT INTO turns(episode_id, turn, decision) VALUES($1,$2,$3)
		ON CONFLICT(episode_id, turn) DO UPDATE SET decision=COALESCE(turns.decision, excluded.decision) RETURNING decision`,
		episodeID, turn, string(d)).Scan(&out); err != nil {
		return nil, s.fail(fmt.Errorf("results: put decision %s/%d: %w", episodeID, turn, err))
	}
	return json.RawMessage(out), nil
}

// Decision implements results.TurnLog.
func (s *Store) Decision(ctx context.Context, episodeID string, turn int) (json.RawMessage, error) {
	body, err := s.body(ctx, fmt.Sprintf("decision %s/%d", episodeID, turn), `SELECT decision FROM turns WHERE episode_id=$1 AND turn=$2`, episodeID, turn)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(body), nil
}

// PutEvent implements results.TurnLog.
func (s *Store) PutEvent(ctx context.Context, episodeID string, ev clinic.Event) (clinic.Event, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return clinic.Event{}, s.fail(fmt.Errorf("results: put event %s/%d: %w", episodeID, ev.Turn, err))
	}
	var out string
	if err := s.queryRow(ctx, `INSERT INTO turns(episode_id, turn, event) VALUES($1,$2,$3)
		ON CONFLICT(episode_id, turn) DO UPDATE SET event=COALESCE(turns.event, excluded.event) RETURNING event`,
		episodeID, ev.Turn, string(b)).Scan(&out); err != nil {
		return clinic.Event{}, s.fail(fmt.Errorf("results: put event %s/%d: %w", episodeID, ev.Turn, err))
	}
	var stored clinic.Event
	if err := json.Unmarshal([]byte(out), &stored); err != nil {
		return clinic.Event{}, s.fail(fmt.Errorf("results: put event %s/%d: stored event: %w", episodeID, ev.Turn, err))
	}
	return stored, nil
}

// Events implements results.TurnLog.
func (s *Store) Events(ctx context.Context, episodeID string, below int) ([]clinic.Event, error) {
	var out []clinic.Event
	err := s.each(ctx, "events "+episodeID, `SELECT turn, event FROM turns WHERE episode_id=$1 AND turn<$2 AND event IS NOT NULL ORDER BY turn`,
		[]any{episodeID, below}, func(rows *sql.Rows) error {
			var turn int
			var body string
			if err := rows.Scan(&turn, &body); err != nil {
				return err
			}
			// The events are rebuilt from the first turn on; a gap would
			// replay an episode without one of its turns.
			if turn != len(out) {
				return fmt.Errorf("turn %d is missing", len(out))
			}
			var ev clinic.Event
			if err := json.Unmarshal([]byte(body), &ev); err != nil {
				return fmt.Errorf("turn %d: %w", turn, err)
			}
			out = append(out, ev)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Counts implements results.Store.
func (s *Store) Counts(ctx context.Context) (records, turns int, err error) {
	if err := s.queryRow(ctx, `SELECT (SELECT COUNT(*) FROM episodes), (SELECT COUNT(*) FROM turns WHERE event IS NOT NULL)`).Scan(&records, &turns); err != nil {
		return 0, 0, s.fail(fmt.Errorf("results: counts: %w", err))
	}
	return records, turns, nil
}

// write runs one writing statement; what names the operation and its key in
// errors.
func (s *Store) write(ctx context.Context, what, query string, args ...any) error {
	if _, err := s.exec(ctx, query, args...); err != nil {
		return s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	return nil
}

// each runs a query and hands every row to row; what names the operation and
// its key in errors.
func (s *Store) each(ctx context.Context, what, query string, args []any, row func(*sql.Rows) error) error {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return s.fail(fmt.Errorf("results: %s: %w", what, err))
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	return nil
}
