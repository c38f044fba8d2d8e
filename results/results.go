// Package results is the results store: episode records upserted by episode ID,
// the per-turn scratch state of running episodes, and run descriptions, in a
// SQLite file under the data directory. Every write is an idempotent upsert so
// activities can be retried.
package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/clinevo/clinevo/clinic"
)

// ErrNotFound is returned for a missing record.
var ErrNotFound = errors.New("results: not found")

// Record is one finished episode as the results store keeps it.
type Record struct {
	EpisodeID     string             `json:"episode_id"`
	WorkflowID    string             `json:"workflow_id"`
	Run           string             `json:"run"`
	Kind          string             `json:"kind"` // stream | stage_eval | replay | heldout
	Pass          int                `json:"pass"`
	Stage         int                `json:"stage"`
	Index         int                `json:"index"`  // 1-based position in the run's case order
	Number        int                `json:"number"` // episode number in the memory lineage
	CaseID        string             `json:"case_id"`
	Condition     string             `json:"condition"`
	Scores        clinic.Scores      `json:"scores"`
	Final         clinic.FinalOutput `json:"final"`
	Termination   clinic.Termination `json:"termination"`
	Turns         int                `json:"turns"`
	Actions       []string           `json:"actions"`          // one line per turn: ACTION target -> status
	Labels        []string           `json:"labels,omitempty"` // process labels per turn
	Retrieved     []string           `json:"retrieved_cards"`
	Written       []string           `json:"written_cards"`
	Evicted       []string           `json:"evicted_cards,omitempty"`
	RuleEdits     []string           `json:"rule_edits,omitempty"`
	LLMErrorTurns []int              `json:"llm_error_turns"`
	Usage         map[string]Usage   `json:"usage,omitempty"` // tokens and cost per role
}

// Usage is model use of one role in one episode.
type Usage struct {
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	CacheHits        int     `json:"cache_hits"`
	ExtraFields      int     `json:"extra_fields"` // unknown fields in the role's replies, ignored
}

// Run describes one stream or evaluation run.
type Run struct {
	Run        string          `json:"run"`
	Kind       string          `json:"kind"`
	WorkflowID string          `json:"workflow_id"`
	Spec       json.RawMessage `json:"spec"`
	Created    string          `json:"created"`
}

// Store is the results database.
type Store struct{ db *sql.DB }

const schema = `
CREATE TABLE IF NOT EXISTS episodes (
  episode_id TEXT PRIMARY KEY, run TEXT NOT NULL, kind TEXT NOT NULL, pass INTEGER NOT NULL,
  stage INTEGER NOT NULL, idx INTEGER NOT NULL, case_id TEXT NOT NULL, condition TEXT NOT NULL,
  record TEXT NOT NULL, trace TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS episodes_run ON episodes(run, idx);
CREATE TABLE IF NOT EXISTS turns (
  episode_id TEXT NOT NULL, turn INTEGER NOT NULL, decision TEXT, event TEXT,
  PRIMARY KEY (episode_id, turn));
CREATE TABLE IF NOT EXISTS traces (episode_id TEXT PRIMARY KEY, trace TEXT NOT NULL, grade TEXT);
CREATE TABLE IF NOT EXISTS run_results (run TEXT PRIMARY KEY, kind TEXT NOT NULL, result TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, reply TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS proposals (episode_id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS usage (episode_id TEXT NOT NULL, role TEXT NOT NULL, calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, cache_hits INTEGER NOT NULL, extra_fields INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (episode_id, role));
CREATE TABLE IF NOT EXISTS runs (run TEXT PRIMARY KEY, kind TEXT NOT NULL, workflow_id TEXT NOT NULL, spec TEXT NOT NULL, created TEXT NOT NULL);
`

// Open opens or creates the results file.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	if err := addColumn(ctx, db, "usage", "extra_fields", "INTEGER NOT NULL DEFAULT 0"); err != nil {
		db.Close()
		return nil, fmt.Errorf("results: open %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// addColumn adds a column that files written by an earlier version lack
// (CREATE TABLE IF NOT EXISTS leaves an existing table as it is).
func addColumn(ctx context.Context, db *sql.DB, table, column, decl string) error {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("columns of %s: %w", table, err)
		}
		if name == column {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("columns of %s: %w", table, err)
	}
	if _, err := db.ExecContext(ctx, `ALTER TABLE `+table+` ADD COLUMN `+column+` `+decl); err != nil {
		return fmt.Errorf("add column %s.%s: %w", table, column, err)
	}
	return nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// PutDecision stores the doctor's decision for a turn unless one is stored
// already, and returns the stored one: a retried activity gets the first decision.
func (s *Store) PutDecision(ctx context.Context, episodeID string, turn int, d json.RawMessage) (json.RawMessage, error) {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO turns(episode_id, turn, decision) VALUES(?,?,?)
		ON CONFLICT(episode_id, turn) DO UPDATE SET decision=COALESCE(turns.decision, excluded.decision)`, episodeID, turn, string(d)); err != nil {
		return nil, fmt.Errorf("results: put decision %s/%d: %w", episodeID, turn, err)
	}
	var out string
	if err := s.db.QueryRowContext(ctx, `SELECT decision FROM turns WHERE episode_id=? AND turn=?`, episodeID, turn).Scan(&out); err != nil {
		return nil, fmt.Errorf("results: put decision %s/%d: %w", episodeID, turn, err)
	}
	return json.RawMessage(out), nil
}

// Decision returns the stored decision for a turn.
func (s *Store) Decision(ctx context.Context, episodeID string, turn int) (json.RawMessage, error) {
	var out sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT decision FROM turns WHERE episode_id=? AND turn=?`, episodeID, turn).Scan(&out)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !out.Valid) {
		return nil, fmt.Errorf("results: decision %s/%d: %w", episodeID, turn, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("results: decision %s/%d: %w", episodeID, turn, err)
	}
	return json.RawMessage(out.String), nil
}

// PutEvent stores the event of a turn unless one is stored, and returns the stored one.
func (s *Store) PutEvent(ctx context.Context, episodeID string, ev clinic.Event) (clinic.Event, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return clinic.Event{}, err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO turns(episode_id, turn, event) VALUES(?,?,?)
		ON CONFLICT(episode_id, turn) DO UPDATE SET event=COALESCE(turns.event, excluded.event)`, episodeID, ev.Turn, string(b)); err != nil {
		return clinic.Event{}, fmt.Errorf("results: put event %s/%d: %w", episodeID, ev.Turn, err)
	}
	events, err := s.Events(ctx, episodeID, ev.Turn+1)
	if err != nil {
		return clinic.Event{}, err
	}
	return events[ev.Turn], nil
}

// Events returns the stored events of turns below `below`, in order. A gap is an error.
func (s *Store) Events(ctx context.Context, episodeID string, below int) ([]clinic.Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT turn, event FROM turns WHERE episode_id=? AND turn<? AND event IS NOT NULL ORDER BY turn`, episodeID, below)
	if err != nil {
		return nil, fmt.Errorf("results: events %s: %w", episodeID, err)
	}
	defer rows.Close()
	var out []clinic.Event
	for rows.Next() {
		var turn int
		var body string
		if err := rows.Scan(&turn, &body); err != nil {
			return nil, err
		}
		if turn != len(out) {
			return nil, fmt.Errorf("results: events %s: turn %d is missing", episodeID, len(out))
		}
		var ev clinic.Event
		if err := json.Unmarshal([]byte(body), &ev); err != nil {
			return nil, fmt.Errorf("results: events %s turn %d: %w", episodeID, turn, err)
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

// PutTrace stores a scored trace of an episode (before it is recorded).
func (s *Store) PutTrace(ctx context.Context, t clinic.Trace) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO traces(episode_id, trace) VALUES(?,?) ON CONFLICT(episode_id) DO UPDATE SET trace=excluded.trace`, t.EpisodeID, string(b))
	if err != nil {
		return fmt.Errorf("results: put trace %s: %w", t.EpisodeID, err)
	}
	return nil
}

// Trace returns the stored trace of an episode.
func (s *Store) Trace(ctx context.Context, episodeID string) (clinic.Trace, error) {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT trace FROM traces WHERE episode_id=?`, episodeID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return clinic.Trace{}, fmt.Errorf("results: trace %s: %w", episodeID, ErrNotFound)
	}
	if err != nil {
		return clinic.Trace{}, fmt.Errorf("results: trace %s: %w", episodeID, err)
	}
	var t clinic.Trace
	if err := json.Unmarshal([]byte(body), &t); err != nil {
		return clinic.Trace{}, fmt.Errorf("results: trace %s: %w", episodeID, err)
	}
	return t, nil
}

// PutGrade stores the process grade of an episode as JSON.
func (s *Store) PutGrade(ctx context.Context, episodeID string, grade any) error {
	b, err := json.Marshal(grade)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE traces SET grade=? WHERE episode_id=?`, string(b), episodeID)
	if err != nil {
		return fmt.Errorf("results: put grade %s: %w", episodeID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("results: put grade %s: trace %w", episodeID, ErrNotFound)
	}
	return nil
}

// Grade decodes the stored process grade of an episode into v.
func (s *Store) Grade(ctx context.Context, episodeID string, v any) error {
	var body sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT grade FROM traces WHERE episode_id=?`, episodeID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !body.Valid) {
		return fmt.Errorf("results: grade %s: %w", episodeID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("results: grade %s: %w", episodeID, err)
	}
	return json.Unmarshal([]byte(body.String), v)
}

// PutRecord upserts an episode record with its trace.
func (s *Store) PutRecord(ctx context.Context, r Record, t clinic.Trace) error {
	rb, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tb, err := json.Marshal(t)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO episodes(episode_id, run, kind, pass, stage, idx, case_id, condition, record, trace)
		VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(episode_id) DO UPDATE SET run=excluded.run, kind=excluded.kind, pass=excluded.pass,
		stage=excluded.stage, idx=excluded.idx, case_id=excluded.case_id, condition=excluded.condition, record=excluded.record, trace=excluded.trace`,
		r.EpisodeID, r.Run, r.Kind, r.Pass, r.Stage, r.Index, r.CaseID, r.Condition, string(rb), string(tb))
	if err != nil {
		return fmt.Errorf("results: put record %s: %w", r.EpisodeID, err)
	}
	return nil
}

// Records returns a run's records in case order ("" for every run).
func (s *Store) Records(ctx context.Context, run string) ([]Record, error) {
	q := `SELECT record FROM episodes ORDER BY run, idx, episode_id`
	args := []any{}
	if run != "" {
		q = `SELECT record FROM episodes WHERE run=? ORDER BY idx, episode_id`
		args = append(args, run)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("results: records: %w", err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return nil, fmt.Errorf("results: records: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RecordTrace returns the recorded trace of an episode.
func (s *Store) RecordTrace(ctx context.Context, episodeID string) (Record, clinic.Trace, error) {
	var rb, tb string
	err := s.db.QueryRowContext(ctx, `SELECT record, trace FROM episodes WHERE episode_id=?`, episodeID).Scan(&rb, &tb)
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, clinic.Trace{}, fmt.Errorf("results: episode %s: %w", episodeID, ErrNotFound)
	}
	if err != nil {
		return Record{}, clinic.Trace{}, fmt.Errorf("results: episode %s: %w", episodeID, err)
	}
	var r Record
	var t clinic.Trace
	if err := json.Unmarshal([]byte(rb), &r); err != nil {
		return Record{}, clinic.Trace{}, err
	}
	if err := json.Unmarshal([]byte(tb), &t); err != nil {
		return Record{}, clinic.Trace{}, err
	}
	return r, t, nil
}

// PutRun records a run's description; the first description wins.
func (s *Store) PutRun(ctx context.Context, r Run) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO runs(run, kind, workflow_id, spec, created) VALUES(?,?,?,?,?) ON CONFLICT(run) DO NOTHING`,
		r.Run, r.Kind, r.WorkflowID, string(r.Spec), r.Created)
	if err != nil {
		return fmt.Errorf("results: put run %s: %w", r.Run, err)
	}
	return nil
}

// Runs lists every run with its episode count.
func (s *Store) Runs(ctx context.Context) ([]Run, map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run, kind, workflow_id, spec, created FROM runs ORDER BY created, run`)
	if err != nil {
		return nil, nil, fmt.Errorf("results: runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var spec string
		if err := rows.Scan(&r.Run, &r.Kind, &r.WorkflowID, &spec, &r.Created); err != nil {
			return nil, nil, err
		}
		r.Spec = json.RawMessage(spec)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	counts := map[string]int{}
	crow, err := s.db.QueryContext(ctx, `SELECT run, COUNT(*) FROM episodes GROUP BY run`)
	if err != nil {
		return nil, nil, fmt.Errorf("results: runs: %w", err)
	}
	defer crow.Close()
	for crow.Next() {
		var run string
		var n int
		if err := crow.Scan(&run, &n); err != nil {
			return nil, nil, err
		}
		counts[run] = n
	}
	return out, counts, crow.Err()
}

// Counts returns how many episode records and stored turns there are.
func (s *Store) Counts(ctx context.Context) (records, turns int, err error) {
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes`).Scan(&records); err != nil {
		return 0, 0, fmt.Errorf("results: counts: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns WHERE event IS NOT NULL`).Scan(&turns); err != nil {
		return 0, 0, fmt.Errorf("results: counts: %w", err)
	}
	return records, turns, nil
}

// PutProposal stores an evolver proposal for an episode unless one is stored.
func (s *Store) PutProposal(ctx context.Context, episodeID string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO proposals(episode_id, body) VALUES(?,?) ON CONFLICT(episode_id) DO NOTHING`, episodeID, string(b)); err != nil {
		return fmt.Errorf("results: put proposal %s: %w", episodeID, err)
	}
	return nil
}

// Proposal decodes the stored evolver proposal of an episode into v.
func (s *Store) Proposal(ctx context.Context, episodeID string, v any) error {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT body FROM proposals WHERE episode_id=?`, episodeID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("results: proposal %s: %w", episodeID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("results: proposal %s: %w", episodeID, err)
	}
	return json.Unmarshal([]byte(body), v)
}

// AddUsage adds model use to an episode's account. Usage is spend: a retried
// call is spent again and counted again.
func (s *Store) AddUsage(ctx context.Context, episodeID string, u Usage, role string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO usage(episode_id, role, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, extra_fields)
		VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(episode_id, role) DO UPDATE SET calls=calls+excluded.calls,
		prompt_tokens=prompt_tokens+excluded.prompt_tokens, completion_tokens=completion_tokens+excluded.completion_tokens,
		cost_usd=cost_usd+excluded.cost_usd, cache_hits=cache_hits+excluded.cache_hits, extra_fields=extra_fields+excluded.extra_fields`,
		episodeID, role, u.Calls, u.PromptTokens, u.CompletionTokens, u.CostUSD, u.CacheHits, u.ExtraFields)
	if err != nil {
		return fmt.Errorf("results: add usage %s: %w", episodeID, err)
	}
	return nil
}

// UsageOf returns an episode's model use by role.
func (s *Store) UsageOf(ctx context.Context, episodeID string) (map[string]Usage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT role, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, extra_fields FROM usage WHERE episode_id=? ORDER BY role`, episodeID)
	if err != nil {
		return nil, fmt.Errorf("results: usage %s: %w", episodeID, err)
	}
	return scanUsage(rows)
}

// Get returns a cached model reply (llm.Cache).
func (s *Store) Get(ctx context.Context, key string) (string, bool) {
	var reply string
	if err := s.db.QueryRowContext(ctx, `SELECT reply FROM llm_cache WHERE key=?`, key).Scan(&reply); err != nil {
		return "", false
	}
	return reply, true
}

// Put caches a model reply (llm.Cache); a failed write only loses the cache entry.
func (s *Store) Put(ctx context.Context, key, reply string) {
	_, _ = s.db.ExecContext(ctx, `INSERT INTO llm_cache(key, reply) VALUES(?,?) ON CONFLICT(key) DO NOTHING`, key, reply)
}

// RunUsage sums the model use of a run's episodes by role.
func (s *Store) RunUsage(ctx context.Context, run string) (map[string]Usage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT role, SUM(calls), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd), SUM(cache_hits), SUM(extra_fields)
		FROM usage WHERE episode_id LIKE ? GROUP BY role ORDER BY role`, strings.ReplaceAll(run, "%", "")+"/%")
	if err != nil {
		return nil, fmt.Errorf("results: run usage %s: %w", run, err)
	}
	return scanUsage(rows)
}

// CompleteRun stores a finished run's result (the last write wins: a rerun of
// a deterministic run writes the same).
func (s *Store) CompleteRun(ctx context.Context, run, kind string, result []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO run_results(run, kind, result) VALUES(?,?,?) ON CONFLICT(run) DO UPDATE SET kind=excluded.kind, result=excluded.result`,
		run, kind, string(result))
	if err != nil {
		return fmt.Errorf("results: complete run %s: %w", run, err)
	}
	return nil
}

// RunResult returns a finished run's stored result.
func (s *Store) RunResult(ctx context.Context, run string) ([]byte, error) {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT result FROM run_results WHERE run=?`, run).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("results: run result %s: %w", run, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("results: run result %s: %w", run, err)
	}
	return []byte(body), nil
}

// scanUsage reads (role, calls, prompt, completion, cost, cache hits, extra fields) rows.
func scanUsage(rows *sql.Rows) (map[string]Usage, error) {
	defer rows.Close()
	out := map[string]Usage{}
	for rows.Next() {
		var role string
		var u Usage
		if err := rows.Scan(&role, &u.Calls, &u.PromptTokens, &u.CompletionTokens, &u.CostUSD, &u.CacheHits, &u.ExtraFields); err != nil {
			return nil, err
		}
		out[role] = u
	}
	return out, rows.Err()
}
