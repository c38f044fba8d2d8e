// Package sqlite is the embedded results store: one SQLite file (WAL) under the
// data directory, the default backend. Several processes may open the same
// file; SQLite's lock serialises their writes.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/internal/sqlitefault"
	"github.com/clinevo/clinevo/internal/sqliteuri"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/internal/codec"
)

var _ results.Store = (*Store)(nil)

// Dependency names this store in failures and waits.
const Dependency = "results/sqlite"

// Store is a results store in a SQLite file.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens or creates the results file at path and migrates its schema to
// the latest version (a file written before versioned migrations is migrated
// in place). A file of a newer schema than this build knows is an error.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := sqlitefault.CheckFile(Dependency, path); err != nil {
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", sqliteuri.File(path, "_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)"))
	if err != nil {
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway, and a second connection of
	// the same process would only wait on the first one's lock.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if err := sqlitefault.WAL(ctx, db); err != nil {
		db.Close()
		return nil, s.fail(fmt.Errorf("results: open %s: %w", path, err))
	}
	if err := migrate(ctx, db, migrations); err != nil {
		db.Close()
		return nil, s.fail(fmt.Errorf("results: open %s: %w", path, err))
	}
	return s, nil
}

// OpenReader opens an existing results file read-only, for a process that
// only reads (the CLI's lookups, the viewer): it writes nothing, not even a
// migration, so a file the reader may not write is read all the same. A file
// of another schema version than this build's is an error saying what to do.
func OpenReader(ctx context.Context, path string) (*Store, error) {
	if err := sqlitefault.CheckFile(Dependency, path); err != nil {
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", sqliteuri.File(path, "mode=ro&_pragma=busy_timeout(10000)"))
	if err != nil {
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if err := readable(ctx, db, migrations); err != nil {
		db.Close()
		return nil, s.fail(fmt.Errorf("results: open %s: %w", path, err))
	}
	return s, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// fail classifies a failure of the file (sqlitefault); nil stays nil.
func (s *Store) fail(err error) error { return sqlitefault.Tag(Dependency, s.path, err) }

// PutDecision implements results.TurnLog.
func (s *Store) PutDecision(ctx context.Context, episodeID string, turn int, d json.RawMessage) (json.RawMessage, error) {
	var out string
	if err := s.db.QueryRowContext(ctx, `INSERT INTO turns(episode_id, turn, decision) VALUES(?,?,?)
		ON CONFLICT(episode_id, turn) DO UPDATE SET decision=COALESCE(turns.decision, excluded.decision) RETURNING decision`,
		episodeID, turn, string(d)).Scan(&out); err != nil {
		return nil, s.fail(fmt.Errorf("results: put decision %s/%d: %w", episodeID, turn, err))
	}
	return json.RawMessage(out), nil
}

// Decision implements results.TurnLog.
func (s *Store) Decision(ctx context.Context, episodeID string, turn int) (json.RawMessage, error) {
	var out sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT decision FROM turns WHERE episode_id=? AND turn=?`, episodeID, turn).Scan(&out)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !out.Valid) {
		return nil, fmt.Errorf("results: decision %s/%d: %w", episodeID, turn, results.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: decision %s/%d: %w", episodeID, turn, err))
	}
	return json.RawMessage(out.String), nil
}

// PutEvent implements results.TurnLog.
func (s *Store) PutEvent(ctx context.Context, episodeID string, ev clinic.Event) (clinic.Event, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return clinic.Event{}, s.fail(fmt.Errorf("results: put event %s/%d: %w", episodeID, ev.Turn, err))
	}
	var out string
	if err := s.db.QueryRowContext(ctx, `INSERT INTO turns(episode_id, turn, event) VALUES(?,?,?)
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
	rows, err := s.db.QueryContext(ctx, `SELECT turn, event FROM turns WHERE episode_id=? AND turn<? AND event IS NOT NULL ORDER BY turn`, episodeID, below)
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
	_, err = s.db.ExecContext(ctx, `INSERT INTO traces(episode_id, trace) VALUES(?,?) ON CONFLICT(episode_id) DO UPDATE SET trace=excluded.trace`, t.EpisodeID, string(b))
	if err != nil {
		return s.fail(fmt.Errorf("results: put trace %s: %w", t.EpisodeID, err))
	}
	return nil
}

// Trace implements results.Grading.
func (s *Store) Trace(ctx context.Context, episodeID string) (clinic.Trace, error) {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT trace FROM traces WHERE episode_id=?`, episodeID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
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
	res, err := s.db.ExecContext(ctx, `UPDATE traces SET grade=? WHERE episode_id=?`, string(b), episodeID)
	if err != nil {
		return s.fail(fmt.Errorf("results: put grade %s: %w", episodeID, err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.fail(fmt.Errorf("results: put grade %s: %w", episodeID, err))
	}
	if n == 0 {
		return fmt.Errorf("results: put grade %s: trace %w", episodeID, results.ErrNotFound)
	}
	return nil
}

// Grade implements results.Grading.
func (s *Store) Grade(ctx context.Context, episodeID string, v any) error {
	var body sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT grade FROM traces WHERE episode_id=?`, episodeID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !body.Valid) {
		return fmt.Errorf("results: grade %s: %w", episodeID, results.ErrNotFound)
	}
	if err != nil {
		return s.fail(fmt.Errorf("results: grade %s: %w", episodeID, err))
	}
	if err := json.Unmarshal([]byte(body.String), v); err != nil {
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
	if _, err := s.db.ExecContext(ctx, `INSERT INTO proposals(episode_id, body) VALUES(?,?) ON CONFLICT(episode_id) DO NOTHING`, episodeID, string(b)); err != nil {
		return s.fail(fmt.Errorf("results: put proposal %s: %w", episodeID, err))
	}
	return nil
}

// Proposal implements results.Grading.
func (s *Store) Proposal(ctx context.Context, episodeID string, v any) error {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT body FROM proposals WHERE episode_id=?`, episodeID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
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
	_, err = s.db.ExecContext(ctx, `INSERT INTO episodes(episode_id, run, kind, pass, stage, idx, case_id, condition, record, trace)
		VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(episode_id) DO UPDATE SET run=excluded.run, kind=excluded.kind, pass=excluded.pass,
		stage=excluded.stage, idx=excluded.idx, case_id=excluded.case_id, condition=excluded.condition, record=excluded.record, trace=excluded.trace`,
		r.EpisodeID, r.Run, r.Kind, r.Pass, r.Stage, r.Index, r.CaseID, r.Condition, rb, tb)
	if err != nil {
		return s.fail(fmt.Errorf("results: put record %s: %w", r.EpisodeID, err))
	}
	return nil
}

// Records implements results.Episodes.
func (s *Store) Records(ctx context.Context, run string) ([]results.Record, error) {
	q := `SELECT record FROM episodes ORDER BY run, idx, episode_id`
	args := []any{}
	if run != "" {
		q = `SELECT record FROM episodes WHERE run=? ORDER BY idx, episode_id`
		args = append(args, run)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
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
	err := s.db.QueryRowContext(ctx, `SELECT record, trace FROM episodes WHERE episode_id=?`, episodeID).Scan(&rb, &tb)
	if errors.Is(err, sql.ErrNoRows) {
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
	err := s.db.QueryRowContext(ctx, `INSERT INTO runs(run, kind, workflow_id, spec, created, claim) VALUES(?,?,?,?,?,?)
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
	rows, err := s.db.QueryContext(ctx, `SELECT runs.run, runs.kind, workflow_id, spec, created, claim, COALESCE(run_results.completed, ''), terminated FROM runs LEFT JOIN run_results ON run_results.run = runs.run ORDER BY created, runs.run`)
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
	crow, err := s.db.QueryContext(ctx, `SELECT run, COUNT(*) FROM episodes GROUP BY run`)
	if err != nil {
		return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
	}
	defer crow.Close()
	for crow.Next() {
		var run string
		var n int
		if err := crow.Scan(&run, &n); err != nil {
			return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
		}
		counts[run] = n
	}
	if err := crow.Err(); err != nil {
		return nil, nil, s.fail(fmt.Errorf("results: runs: %w", err))
	}
	return out, counts, nil
}

// Counts implements results.Store.
func (s *Store) Counts(ctx context.Context) (records, turns int, err error) {
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes`).Scan(&records); err != nil {
		return 0, 0, s.fail(fmt.Errorf("results: counts: %w", err))
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns WHERE event IS NOT NULL`).Scan(&turns); err != nil {
		return 0, 0, s.fail(fmt.Errorf("results: counts: %w", err))
	}
	return records, turns, nil
}

// AddUsage implements results.Spend.
func (s *Store) AddUsage(ctx context.Context, episodeID string, u results.Usage, role string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO usage(episode_id, role, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, model, extra_fields,
		cached_tokens, endpoint, rate_limited, waited_ms, endpoint_limit, limit_at)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(episode_id, role) DO UPDATE SET calls=calls+excluded.calls,
		prompt_tokens=prompt_tokens+excluded.prompt_tokens, completion_tokens=completion_tokens+excluded.completion_tokens,
		cost_usd=cost_usd+excluded.cost_usd, cache_hits=cache_hits+excluded.cache_hits, extra_fields=extra_fields+excluded.extra_fields,
		model=CASE WHEN excluded.model<>'' THEN excluded.model ELSE usage.model END,
		cached_tokens=cached_tokens+excluded.cached_tokens, rate_limited=rate_limited+excluded.rate_limited, waited_ms=waited_ms+excluded.waited_ms,
		endpoint=CASE WHEN excluded.endpoint<>'' THEN excluded.endpoint ELSE usage.endpoint END,
		endpoint_limit=CASE WHEN excluded.limit_at>usage.limit_at THEN excluded.endpoint_limit ELSE usage.endpoint_limit END,
		limit_at=MAX(usage.limit_at, excluded.limit_at)`,
		episodeID, role, u.Calls, u.PromptTokens, u.CompletionTokens, u.CostUSD, u.CacheHits, u.Model, u.ExtraFields,
		u.CachedTokens, u.Endpoint, u.RateLimited, u.WaitedMS, u.Limit, u.LimitAt)
	if err != nil {
		return s.fail(fmt.Errorf("results: add usage %s: %w", episodeID, err))
	}
	return nil
}

// UsageOf implements results.Spend.
func (s *Store) UsageOf(ctx context.Context, episodeID string) (map[string]results.Usage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT role, model, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, extra_fields,
		cached_tokens, endpoint, rate_limited, waited_ms, endpoint_limit, limit_at FROM usage WHERE episode_id=? ORDER BY role`, episodeID)
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: usage %s: %w", episodeID, err))
	}
	u, err := scanUsage(rows)
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: usage %s: %w", episodeID, err))
	}
	return u, nil
}

// AddTime implements results.Spend.
func (s *Store) AddTime(ctx context.Context, episodeID, phase string, ms float64) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO times(episode_id, phase, ms) VALUES(?,?,?)
		ON CONFLICT(episode_id, phase) DO UPDATE SET ms=ms+excluded.ms`, episodeID, phase, ms); err != nil {
		return s.fail(fmt.Errorf("results: add time %s: %w", episodeID, err))
	}
	return nil
}

// TimeOf implements results.Spend.
func (s *Store) TimeOf(ctx context.Context, episodeID string) (map[string]float64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT phase, ms FROM times WHERE episode_id=? ORDER BY phase`, episodeID)
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
	// byte after '/'): a range the primary key's index serves, and no LIKE,
	// since a run name may hold % or _.
	// The endpoint's limit is the latest reading (the row of the highest
	// limit_at), not a sum.
	rows, err := s.db.QueryContext(ctx, `SELECT role, MAX(model), SUM(calls), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd), SUM(cache_hits), SUM(extra_fields),
		SUM(cached_tokens), MAX(endpoint), SUM(rate_limited), SUM(waited_ms),
		(SELECT l.endpoint_limit FROM usage l WHERE l.episode_id >= ?1 AND l.episode_id < ?2 AND l.role = usage.role ORDER BY l.limit_at DESC LIMIT 1), MAX(limit_at)
		FROM usage WHERE episode_id >= ?1 AND episode_id < ?2 GROUP BY role ORDER BY role`, run+"/", run+"0")
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: run usage %s: %w", run, err))
	}
	u, err := scanUsage(rows)
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: run usage %s: %w", run, err))
	}
	return u, nil
}

// Get implements results.ModelCache.
func (s *Store) Get(ctx context.Context, key string) (string, bool) {
	var reply string
	if err := s.db.QueryRowContext(ctx, `SELECT reply FROM llm_cache WHERE key=?`, key).Scan(&reply); err != nil {
		return "", false // a miss or a failed read: either way the model is asked
	}
	return reply, true
}

// Put implements results.ModelCache.
func (s *Store) Put(ctx context.Context, key, reply string) {
	// A failed write only loses the cache entry; the reply is already in hand.
	_, _ = s.db.ExecContext(ctx, `INSERT INTO llm_cache(key, reply) VALUES(?,?) ON CONFLICT(key) DO NOTHING`, key, reply)
}

// Drop implements results.ModelCache.
func (s *Store) Drop(ctx context.Context, key, stale string) {
	// A failed delete leaves the stale entry, which the next reader drops.
	_, _ = s.db.ExecContext(ctx, `DELETE FROM llm_cache WHERE key=? AND reply=?`, key, stale)
}

// PutSettings implements results.SharedSettings.
func (s *Store) PutSettings(ctx context.Context, ref string, body json.RawMessage) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO settings(ref, body) VALUES(?,?) ON CONFLICT(ref) DO NOTHING`, ref, string(body)); err != nil {
		return s.fail(fmt.Errorf("results: put settings %s: %w", ref, err))
	}
	return nil
}

// Settings implements results.SharedSettings.
func (s *Store) Settings(ctx context.Context, ref string) (json.RawMessage, error) {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT body FROM settings WHERE ref=?`, ref).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("results: settings %s: %w", ref, results.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: settings %s: %w", ref, err))
	}
	return json.RawMessage(body), nil
}

// CompleteRun implements results.RunLog.
func (s *Store) CompleteRun(ctx context.Context, run, kind string, result []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO run_results(run, kind, result, completed) VALUES(?,?,?,?)
		ON CONFLICT(run) DO UPDATE SET kind=excluded.kind, result=excluded.result, completed=CASE WHEN run_results.completed='' THEN excluded.completed ELSE run_results.completed END`,
		run, kind, string(result), time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return s.fail(fmt.Errorf("results: complete run %s: %w", run, err))
	}
	return nil
}

// RunResult implements results.RunLog.
func (s *Store) RunResult(ctx context.Context, run string) ([]byte, error) {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT result FROM run_results WHERE run=?`, run).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("results: run result %s: %w", run, results.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("results: run result %s: %w", run, err))
	}
	return []byte(body), nil
}

// scanUsage reads (role, model, calls, prompt, completion, cost, cache hits,
// extra fields, cached tokens, endpoint, rate limited, waited, limit, limit at) rows.
func scanUsage(rows *sql.Rows) (map[string]results.Usage, error) {
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

// TerminateRun implements results.RunLog.
func (s *Store) TerminateRun(ctx context.Context, run, reason string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET terminated=? WHERE run=?`, reason, run)
	if err != nil {
		return s.fail(fmt.Errorf("results: terminate run %s: %w", run, err))
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(s.fail(err), fmt.Errorf("results: terminate run %s: %w", run, results.ErrNotFound))
	}
	return nil
}
