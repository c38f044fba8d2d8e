package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
)

// PutRecord implements results.Episodes.
func (s *Store) PutRecord(ctx context.Context, r results.Record, t clinic.Trace) error {
	what := "put record " + r.EpisodeID
	rb, err := json.Marshal(r)
	if err != nil {
		return s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	tb, err := json.Marshal(t)
	if err != nil {
		return s.fail(fmt.Errorf("results: %s: trace: %w", what, err))
	}
	return s.write(ctx, what, `INSERT INTO episodes(episode_id, run, kind, pass, stage, idx, case_id, condition, record, trace)
		VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT(episode_id) DO UPDATE SET run=excluded.run, kind=excluded.kind, pass=excluded.pass,
		stage=excluded.stage, idx=excluded.idx, case_id=excluded.case_id, condition=excluded.condition, record=excluded.record, trace=excluded.trace`,
		r.EpisodeID, r.Run, r.Kind, r.Pass, r.Stage, r.Index, r.CaseID, r.Condition, string(rb), string(tb))
}

// Records implements results.Episodes.
func (s *Store) Records(ctx context.Context, run string) ([]results.Record, error) {
	q := `SELECT record FROM episodes ORDER BY run, idx, episode_id`
	args := []any{}
	if run != "" {
		q = `SELECT record FROM episodes WHERE run=$1 ORDER BY idx, episode_id`
		args = append(args, run)
	}
	var out []results.Record
	err := s.each(ctx, "records", q, args, func(rows *sql.Rows) error {
		var body string
		if err := rows.Scan(&body); err != nil {
			return err
		}
		var r results.Record
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RecordTrace implements results.Episodes.
func (s *Store) RecordTrace(ctx context.Context, episodeID string) (results.Record, clinic.Trace, error) {
	what := "episode " + episodeID
	var rb, tb string
	err := s.queryRow(ctx, `SELECT record, trace FROM episodes WHERE episode_id=$1`, episodeID).Scan(&rb, &tb)
	if errors.Is(err, sql.ErrNoRows) {
		return results.Record{}, clinic.Trace{}, fmt.Errorf("results: %s: %w", what, results.ErrNotFound)
	}
	if err != nil {
		return results.Record{}, clinic.Trace{}, s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	var r results.Record
	var t clinic.Trace
	if err := s.decode(what+": record", rb, &r); err != nil {
		return results.Record{}, clinic.Trace{}, err
	}
	if err := s.decode(what+": trace", tb, &t); err != nil {
		return results.Record{}, clinic.Trace{}, err
	}
	return r, t, nil
}

// PutRun implements results.RunLog. The insert and the check of the claim
// are one statement, so two runs racing for an ID cannot both win it.
func (s *Store) PutRun(ctx context.Context, r results.Run) error {
	if r.Created == "" {
		r.Created = time.Now().UTC().Format(time.RFC3339) // the store's clock, as for Completed
	}
	var claim string
	err := s.queryRow(ctx, `INSERT INTO runs(run, kind, workflow_id, spec, created, claim) VALUES($1,$2,$3,$4,$5,$6)
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
	var out []results.Run
	err := s.each(ctx, "runs", `SELECT runs.run, runs.kind, workflow_id, spec, created, claim, COALESCE(run_results.completed, ''), terminated
		FROM runs LEFT JOIN run_results ON run_results.run = runs.run ORDER BY created, runs.run`, nil, func(rows *sql.Rows) error {
		var r results.Run
		var spec string
		if err := rows.Scan(&r.Run, &r.Kind, &r.WorkflowID, &spec, &r.Created, &r.Claim, &r.Completed, &r.Terminated); err != nil {
			return err
		}
		r.Spec = json.RawMessage(spec)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	counts := map[string]int{}
	err = s.each(ctx, "runs", `SELECT run, COUNT(*) FROM episodes GROUP BY run`, nil, func(rows *sql.Rows) error {
		var run string
		var n int
		if err := rows.Scan(&run, &n); err != nil {
			return err
		}
		counts[run] = n
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, counts, nil
}

// CompleteRun implements results.RunLog.
func (s *Store) CompleteRun(ctx context.Context, run, kind string, result []byte) error {
	return s.write(ctx, "complete run "+run, `INSERT INTO run_results(run, kind, result, completed) VALUES($1,$2,$3,$4)
		ON CONFLICT(run) DO UPDATE SET kind=excluded.kind, result=excluded.result,
		completed=CASE WHEN run_results.completed='' THEN excluded.completed ELSE run_results.completed END`,
		run, kind, string(result), time.Now().UTC().Format(time.RFC3339))
}

// RunResult implements results.RunLog.
func (s *Store) RunResult(ctx context.Context, run string) ([]byte, error) {
	body, err := s.body(ctx, "run result "+run, `SELECT result FROM run_results WHERE run=$1`, run)
	if err != nil {
		return nil, err
	}
	return []byte(body), nil
}

// TerminateRun implements results.RunLog.
func (s *Store) TerminateRun(ctx context.Context, run, reason string) error {
	res, err := s.exec(ctx, `UPDATE runs SET terminated=$1 WHERE run=$2`, reason, run)
	if err != nil {
		return s.fail(fmt.Errorf("results: terminate run %s: %w", run, err))
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(s.fail(err), fmt.Errorf("results: terminate run %s: %w", run, results.ErrNotFound))
	}
	return nil
}
