// Package postgres is the results store on PostgreSQL (through pgx): one
// database shared by every worker and the CLI, so an episode whose activities
// land on several machines finds its own turns. Concurrent writers from many
// processes are safe: every write is a single upsert statement.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/internal/codec"
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
type Store struct{ pool *pgxpool.Pool }

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
	if err := CheckDSN(c.DSN); err != nil {
		return nil, fmt.Errorf("results: open postgres: %w", err)
	}
	pc, err := pgxpool.ParseConfig(c.DSN)
	if err != nil {
		return nil, fmt.Errorf("results: open postgres: %w", err) // pgconn redacts any password in the message
	}
	if c.Password != "" {
		pc.ConnConfig.Password = c.Password
	}
	if reader {
		pc.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, classify(fmt.Errorf("results: open postgres: %w", err))
	}
	s := &Store{pool: pool}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, classify(fmt.Errorf("results: open postgres: %w", err))
	}
	check := migrate
	if reader {
		check = readable
	}
	if err := check(ctx, pool, migrations); err != nil {
		pool.Close()
		return nil, classify(fmt.Errorf("results: open postgres: %w", err))
	}
	return s, nil
}

// fail classifies a failure of the database; nil stays nil.
func (s *Store) fail(err error) error { return classify(err) }

// classify tags err with its fault class: connection exceptions, a server
// shutting down or starting, exhausted resources and serialization failures
// are unavailable, a cancelled statement a timeout; a refused login or a
// missing privilege is unauthorized, a missing database or a read-only server
// invalid, an undefined table or column a schema fault; what the driver and
// the standard library say about connections is classified as fault.Network
// does. A message never holds the password (pgconn redacts it).
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
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) {
		return fault.New(Dependency, fault.Unavailable, err)
	}
	return fault.New(Dependency, fault.Unknown, err)
}

// Close closes every connection.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// PutDecision implements results.TurnLog. The upsert takes the row lock, so of
// two workers racing on one turn the second sees and returns the first's value.
func (s *Store) PutDecision(ctx context.Context, episodeID string, turn int, d json.RawMessage) (json.RawMessage, error) {
	var out string
	if err := s.pool.QueryRow(ctx, `INSERT INTO turns(episode_id, turn, decision) VALUES($1,$2,$3)
		ON CONFLICT(episode_id, turn) DO UPDATE SET decision=COALESCE(turns.decision, excluded.decision) RETURNING decision`,
		episodeID, turn, string(d)).Scan(&out); err != nil {
		return nil, s.fail(fmt.Errorf("results: put decision %s/%d: %w", episodeID, turn, err))
	}
	return json.RawMessage(out), nil
}

// Decision implements results.TurnLog.
func (s *Store) Decision(ctx context.Context, episodeID string, turn int) (json.RawMessage, error) {
	var out *string
	err := s.pool.QueryRow(ctx, `SELECT decision FROM turns WHERE episode_id=$1 AND turn=$2`, episodeID, turn).Scan(&out)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && out == nil) {
		return nil, fmt.Errorf("results: decision %s/%d: %w", episodeID, turn, results.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: decision %s/%d: %w", episodeID, turn, err))
	}
	return json.RawMessage(*out), nil
}

// PutEvent implements results.TurnLog.
func (s *Store) PutEvent(ctx context.Context, episodeID string, ev clinic.Event) (clinic.Event, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return clinic.Event{}, s.fail(fmt.Errorf("results: put event %s/%d: %w", episodeID, ev.Turn, err))
	}
	var out string
	if err := s.pool.QueryRow(ctx, `INSERT INTO turns(episode_id, turn, event) VALUES($1,$2,$3)
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
	rows, err := s.pool.Query(ctx, `SELECT turn, event FROM turns WHERE episode_id=$1 AND turn<$2 AND event IS NOT NULL ORDER BY turn`, episodeID, below)
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: events %s: %w", episodeID, err))
	}
	defer rows.Close()
	var out []clinic.Event
	for rows.Next() {
		var turn int
		var body string
		if err := rows.Scan(&turn, &body); err != nil {
			return nil, s.fail(fmt.Errorf("results: events %s: %w", episodeID, err))
		}
		if out, err = codec.AppendEvent(out, episodeID, turn, body); err != nil {
			return nil, s.fail(err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("results: events %s: %w", episodeID, err))
	}
	return out, nil
}

// PutTrace implements results.Grading.
func (s *Store) PutTrace(ctx context.Context, t clinic.Trace) error {
	b, err := json.Marshal(t)
	if err != nil {
		return s.fail(fmt.Errorf("results: put trace %s: %w", t.EpisodeID, err))
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO traces(episode_id, trace) VALUES($1,$2) ON CONFLICT(episode_id) DO UPDATE SET trace=excluded.trace`,
		t.EpisodeID, string(b)); err != nil {
		return s.fail(fmt.Errorf("results: put trace %s: %w", t.EpisodeID, err))
	}
	return nil
}

// Trace implements results.Grading.
func (s *Store) Trace(ctx context.Context, episodeID string) (clinic.Trace, error) {
	var body string
	err := s.pool.QueryRow(ctx, `SELECT trace FROM traces WHERE episode_id=$1`, episodeID).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return clinic.Trace{}, fmt.Errorf("results: trace %s: %w", episodeID, results.ErrNotFound)
	}
	if err != nil {
		return clinic.Trace{}, s.fail(fmt.Errorf("results: trace %s: %w", episodeID, err))
	}
	var t clinic.Trace
	if err := json.Unmarshal([]byte(body), &t); err != nil {
		return clinic.Trace{}, s.fail(fmt.Errorf("results: trace %s: %w", episodeID, err))
	}
	return t, nil
}

// PutGrade implements results.Grading.
func (s *Store) PutGrade(ctx context.Context, episodeID string, grade any) error {
	b, err := json.Marshal(grade)
	if err != nil {
		return s.fail(fmt.Errorf("results: put grade %s: %w", episodeID, err))
	}
	tag, err := s.pool.Exec(ctx, `UPDATE traces SET grade=$1 WHERE episode_id=$2`, string(b), episodeID)
	if err != nil {
		return s.fail(fmt.Errorf("results: put grade %s: %w", episodeID, err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("results: put grade %s: trace %w", episodeID, results.ErrNotFound)
	}
	return nil
}

// Grade implements results.Grading.
func (s *Store) Grade(ctx context.Context, episodeID string, v any) error {
	var body *string
	err := s.pool.QueryRow(ctx, `SELECT grade FROM traces WHERE episode_id=$1`, episodeID).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && body == nil) {
		return fmt.Errorf("results: grade %s: %w", episodeID, results.ErrNotFound)
	}
	if err != nil {
		return s.fail(fmt.Errorf("results: grade %s: %w", episodeID, err))
	}
	if err := json.Unmarshal([]byte(*body), v); err != nil {
		return s.fail(fmt.Errorf("results: grade %s: %w", episodeID, err))
	}
	return nil
}

// PutProposal implements results.Grading.
func (s *Store) PutProposal(ctx context.Context, episodeID string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return s.fail(fmt.Errorf("results: put proposal %s: %w", episodeID, err))
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO proposals(episode_id, body) VALUES($1,$2) ON CONFLICT(episode_id) DO NOTHING`, episodeID, string(b)); err != nil {
		return s.fail(fmt.Errorf("results: put proposal %s: %w", episodeID, err))
	}
	return nil
}

// Proposal implements results.Grading.
func (s *Store) Proposal(ctx context.Context, episodeID string, v any) error {
	var body string
	err := s.pool.QueryRow(ctx, `SELECT body FROM proposals WHERE episode_id=$1`, episodeID).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("results: proposal %s: %w", episodeID, results.ErrNotFound)
	}
	if err != nil {
		return s.fail(fmt.Errorf("results: proposal %s: %w", episodeID, err))
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return s.fail(fmt.Errorf("results: proposal %s: %w", episodeID, err))
	}
	return nil
}

// PutRecord implements results.Episodes.
func (s *Store) PutRecord(ctx context.Context, r results.Record, t clinic.Trace) error {
	rb, tb, err := codec.EncodeRecord(r, t)
	if err != nil {
		return s.fail(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO episodes(episode_id, run, kind, pass, stage, idx, case_id, condition, record, trace)
		VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT(episode_id) DO UPDATE SET run=excluded.run, kind=excluded.kind, pass=excluded.pass,
		stage=excluded.stage, idx=excluded.idx, case_id=excluded.case_id, condition=excluded.condition, record=excluded.record, trace=excluded.trace`,
		r.EpisodeID, r.Run, r.Kind, r.Pass, r.Stage, r.Index, r.CaseID, r.Condition, rb, tb); err != nil {
		return s.fail(fmt.Errorf("results: put record %s: %w", r.EpisodeID, err))
	}
	return nil
}

// Records implements results.Episodes.
func (s *Store) Records(ctx context.Context, run string) ([]results.Record, error) {
	q := `SELECT record FROM episodes ORDER BY run, idx, episode_id`
	args := []any{}
	if run != "" {
		q = `SELECT record FROM episodes WHERE run=$1 ORDER BY idx, episode_id`
		args = append(args, run)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: records: %w", err))
	}
	defer rows.Close()
	var out []results.Record
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, s.fail(fmt.Errorf("results: records: %w", err))
		}
		var r results.Record
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return nil, s.fail(fmt.Errorf("results: records: %w", err))
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("results: records: %w", err))
	}
	return out, nil
}

// RecordTrace implements results.Episodes.
func (s *Store) RecordTrace(ctx context.Context, episodeID string) (results.Record, clinic.Trace, error) {
	var rb, tb string
	err := s.pool.QueryRow(ctx, `SELECT record, trace FROM episodes WHERE episode_id=$1`, episodeID).Scan(&rb, &tb)
	if errors.Is(err, pgx.ErrNoRows) {
		return results.Record{}, clinic.Trace{}, fmt.Errorf("results: episode %s: %w", episodeID, results.ErrNotFound)
	}
	if err != nil {
		return results.Record{}, clinic.Trace{}, s.fail(fmt.Errorf("results: episode %s: %w", episodeID, err))
	}
	rec, tr, err := codec.DecodeRecord(episodeID, rb, tb)
	return rec, tr, s.fail(err)
}

// PutRun implements results.RunLog. The insert and the check of the claim
// are one statement, so two runs racing for an ID cannot both win it.
func (s *Store) PutRun(ctx context.Context, r results.Run) error {
	if r.Created == "" {
		r.Created = time.Now().UTC().Format(time.RFC3339) // the store's clock, as for Completed
	}
	var claim string
	err := s.pool.QueryRow(ctx, `INSERT INTO runs(run, kind, workflow_id, spec, created, claim) VALUES($1,$2,$3,$4,$5,$6)
		ON CONFLICT(run) DO UPDATE SET claim=CASE WHEN runs.claim='' THEN excluded.claim ELSE runs.claim END RETURNING claim`,
		r.Run, r.Kind, r.WorkflowID, string(r.Spec), r.Created, r.Claim).Scan(&claim)
	if err != nil {
		return s.fail(fmt.Errorf("results: put run %s: %w", r.Run, err))
	}
	if claim != r.Claim {
		return fmt.Errorf("results: put run %s: %w", r.Run, results.ErrRunExists)
	}
	return nil
}

// Runs implements results.RunLog.
func (s *Store) Runs(ctx context.Context) ([]results.Run, map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT runs.run, runs.kind, workflow_id, spec, created, claim, COALESCE(run_results.completed, ''), terminated FROM runs LEFT JOIN run_results ON run_results.run = runs.run ORDER BY created, runs.run`)
	if err != nil {
		return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
	}
	defer rows.Close()
	var out []results.Run
	for rows.Next() {
		var r results.Run
		var spec string
		if err := rows.Scan(&r.Run, &r.Kind, &r.WorkflowID, &spec, &r.Created, &r.Claim, &r.Completed, &r.Terminated); err != nil {
			return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
		}
		r.Spec = json.RawMessage(spec)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
	}
	counts := map[string]int{}
	crows, err := s.pool.Query(ctx, `SELECT run, COUNT(*) FROM episodes GROUP BY run`)
	if err != nil {
		return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
	}
	defer crows.Close()
	for crows.Next() {
		var run string
		var n int
		if err := crows.Scan(&run, &n); err != nil {
			return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
		}
		counts[run] = n
	}
	if err := crows.Err(); err != nil {
		return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
	}
	return out, counts, nil
}

// Counts implements results.Store.
func (s *Store) Counts(ctx context.Context) (records, turns int, err error) {
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM episodes), (SELECT COUNT(*) FROM turns WHERE event IS NOT NULL)`).Scan(&records, &turns); err != nil {
		return 0, 0, s.fail(fmt.Errorf("results: counts: %w", err))
	}
	return records, turns, nil
}

// AddUsage implements results.Spend. The sum is computed under the row lock,
// so concurrent additions from several workers all count.
func (s *Store) AddUsage(ctx context.Context, episodeID string, u results.Usage, role string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO usage(episode_id, role, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, model, extra_fields,
		cached_tokens, endpoint, rate_limited, waited_ms, endpoint_limit, limit_at)
		VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) ON CONFLICT(episode_id, role) DO UPDATE SET calls=usage.calls+excluded.calls,
		prompt_tokens=usage.prompt_tokens+excluded.prompt_tokens, completion_tokens=usage.completion_tokens+excluded.completion_tokens,
		cost_usd=usage.cost_usd+excluded.cost_usd, cache_hits=usage.cache_hits+excluded.cache_hits, extra_fields=usage.extra_fields+excluded.extra_fields,
		model=CASE WHEN excluded.model<>'' THEN excluded.model ELSE usage.model END,
		cached_tokens=usage.cached_tokens+excluded.cached_tokens, rate_limited=usage.rate_limited+excluded.rate_limited,
		waited_ms=usage.waited_ms+excluded.waited_ms,
		endpoint=CASE WHEN excluded.endpoint<>'' THEN excluded.endpoint ELSE usage.endpoint END,
		endpoint_limit=CASE WHEN excluded.limit_at>usage.limit_at THEN excluded.endpoint_limit ELSE usage.endpoint_limit END,
		limit_at=GREATEST(usage.limit_at, excluded.limit_at)`,
		episodeID, role, u.Calls, u.PromptTokens, u.CompletionTokens, u.CostUSD, u.CacheHits, u.Model, u.ExtraFields,
		u.CachedTokens, u.Endpoint, u.RateLimited, u.WaitedMS, u.Limit, u.LimitAt); err != nil {
		return s.fail(fmt.Errorf("results: add usage %s: %w", episodeID, err))
	}
	return nil
}

// UsageOf implements results.Spend.
func (s *Store) UsageOf(ctx context.Context, episodeID string) (map[string]results.Usage, error) {
	u, err := s.usage(ctx, `SELECT role, model, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, extra_fields,
		cached_tokens, endpoint, rate_limited, waited_ms, endpoint_limit, limit_at FROM usage WHERE episode_id=$1 ORDER BY role`, episodeID)
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: usage %s: %w", episodeID, err))
	}
	return u, nil
}

// AddTime implements results.Spend.
func (s *Store) AddTime(ctx context.Context, episodeID, phase string, ms float64) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO times(episode_id, phase, ms) VALUES($1,$2,$3)
		ON CONFLICT(episode_id, phase) DO UPDATE SET ms=times.ms+excluded.ms`, episodeID, phase, ms); err != nil {
		return s.fail(fmt.Errorf("results: add time %s: %w", episodeID, err))
	}
	return nil
}

// TimeOf implements results.Spend.
func (s *Store) TimeOf(ctx context.Context, episodeID string) (map[string]float64, error) {
	rows, err := s.pool.Query(ctx, `SELECT phase, ms FROM times WHERE episode_id=$1 ORDER BY phase`, episodeID)
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: time %s: %w", episodeID, err))
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var phase string
		var ms float64
		if err := rows.Scan(&phase, &ms); err != nil {
			return nil, s.fail(fmt.Errorf("results: time %s: %w", episodeID, err))
		}
		out[phase] = ms
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("results: time %s: %w", episodeID, err))
	}
	return out, nil
}

// RunUsage implements results.Spend.
func (s *Store) RunUsage(ctx context.Context, run string) (map[string]results.Usage, error) {
	// The run's episode IDs are the keys from "run/" up to "run0" ('0' is the
	// byte after '/'; the column collates bytewise): a range the primary
	// key's index serves, and no LIKE, since a run name may hold % or _. SUM
	// of a BIGINT is a NUMERIC; the casts bring the sums back to integers.
	// The endpoint's limit is the latest reading (the row of the highest
	// limit_at), not a sum.
	u, err := s.usage(ctx, `SELECT role, MAX(model), SUM(calls)::BIGINT, SUM(prompt_tokens)::BIGINT, SUM(completion_tokens)::BIGINT, SUM(cost_usd), SUM(cache_hits)::BIGINT, SUM(extra_fields)::BIGINT,
		SUM(cached_tokens)::BIGINT, MAX(endpoint), SUM(rate_limited)::BIGINT, SUM(waited_ms),
		(SELECT l.endpoint_limit FROM usage l WHERE l.episode_id >= $1 AND l.episode_id < $2 AND l.role = usage.role ORDER BY l.limit_at DESC LIMIT 1), MAX(limit_at)
		FROM usage WHERE episode_id >= $1 AND episode_id < $2 GROUP BY role ORDER BY role`, run+"/", run+"0")
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: run usage %s: %w", run, err))
	}
	return u, nil
}

// usage reads (role, model, calls, prompt, completion, cost, cache hits,
// extra fields, cached tokens, endpoint, rate limited, waited, limit, limit at) rows.
func (s *Store) usage(ctx context.Context, q string, args ...any) (map[string]results.Usage, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]results.Usage{}
	for rows.Next() {
		var role string
		var u results.Usage
		if err := rows.Scan(&role, &u.Model, &u.Calls, &u.PromptTokens, &u.CompletionTokens, &u.CostUSD, &u.CacheHits, &u.ExtraFields,
			&u.CachedTokens, &u.Endpoint, &u.RateLimited, &u.WaitedMS, &u.Limit, &u.LimitAt); err != nil {
			return nil, err
		}
		out[role] = u
	}
	return out, rows.Err()
}

// Get implements results.ModelCache.
func (s *Store) Get(ctx context.Context, key string) (string, bool) {
	var reply string
	if err := s.pool.QueryRow(ctx, `SELECT reply FROM llm_cache WHERE key=$1`, key).Scan(&reply); err != nil {
		return "", false // a miss or a failed read: either way the model is asked
	}
	return reply, true
}

// Put implements results.ModelCache.
func (s *Store) Put(ctx context.Context, key, reply string) {
	// A failed write only loses the cache entry; the reply is already in hand.
	_, _ = s.pool.Exec(ctx, `INSERT INTO llm_cache(key, reply) VALUES($1,$2) ON CONFLICT(key) DO NOTHING`, key, reply)
}

// Drop implements results.ModelCache.
func (s *Store) Drop(ctx context.Context, key, stale string) {
	// A failed delete leaves the stale entry, which the next reader drops.
	_, _ = s.pool.Exec(ctx, `DELETE FROM llm_cache WHERE key=$1 AND reply=$2`, key, stale)
}

// PutSettings implements results.SharedSettings.
func (s *Store) PutSettings(ctx context.Context, ref string, body json.RawMessage) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO settings(ref, body) VALUES($1,$2) ON CONFLICT(ref) DO NOTHING`, ref, string(body)); err != nil {
		return s.fail(fmt.Errorf("results: put settings %s: %w", ref, err))
	}
	return nil
}

// Settings implements results.SharedSettings.
func (s *Store) Settings(ctx context.Context, ref string) (json.RawMessage, error) {
	var body string
	err := s.pool.QueryRow(ctx, `SELECT body FROM settings WHERE ref=$1`, ref).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("results: settings %s: %w", ref, results.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: settings %s: %w", ref, err))
	}
	return json.RawMessage(body), nil
}

// CompleteRun implements results.RunLog.
func (s *Store) CompleteRun(ctx context.Context, run, kind string, result []byte) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO run_results(run, kind, result, completed) VALUES($1,$2,$3,$4)
		ON CONFLICT(run) DO UPDATE SET kind=excluded.kind, result=excluded.result, completed=CASE WHEN run_results.completed='' THEN excluded.completed ELSE run_results.completed END`,
		run, kind, string(result), time.Now().UTC().Format(time.RFC3339)); err != nil {
		return s.fail(fmt.Errorf("results: complete run %s: %w", run, err))
	}
	return nil
}

// RunResult implements results.RunLog.
func (s *Store) RunResult(ctx context.Context, run string) ([]byte, error) {
	var body string
	err := s.pool.QueryRow(ctx, `SELECT result FROM run_results WHERE run=$1`, run).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("results: run result %s: %w", run, results.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: run result %s: %w", run, err))
	}
	return []byte(body), nil
}

// TerminateRun implements results.RunLog.
func (s *Store) TerminateRun(ctx context.Context, run, reason string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE runs SET terminated=$1 WHERE run=$2`, reason, run)
	if err != nil {
		return s.fail(fmt.Errorf("results: terminate run %s: %w", run, err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("results: terminate run %s: %w", run, results.ErrNotFound)
	}
	return nil
}
