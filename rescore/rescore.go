// Package rescore scores recorded episodes again under another judge without
// replaying them (a judge substitution on fixed trajectories), into new runs
// of the results store that an experiment's report reads beside its
// conditions. A benchmark may say what a substitution re-scores (Rescorer).
package rescore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// Kind is the run kind of a re-scored run.
const Kind = "rescore"

// Store is what re-scoring reads and writes.
type Store interface {
	results.Episodes
	results.RunLog
}

// Summary is one re-scored run.
type Summary struct {
	Source   string  `json:"source"`
	Run      string  `json:"run"`
	Episodes int     `json:"episodes"`
	Before   float64 `json:"mean_s_before"`
	After    float64 `json:"mean_s_after"`
}

// spec is what a re-scored run records of how it was made.
type spec struct {
	Source   string            `json:"source"`
	Variant  string            `json:"variant"`
	Judge    settings.Role     `json:"judge"` // names the key's variable, never holds a key
	Settings settings.Settings `json:"settings"`
}

// Experiment re-scores every held-out baseline condition of a finished
// experiment (a heldout condition whose name holds no contract.VariantSep)
// with judge as roles.judge, into runs named <experiment>-<condition>@<variant>.
// A stream is not re-scored: what it learned after each episode followed the
// scores of its own judge, so another judge would have made another stream. set are the build's
// benchmarks; roles builds the roles of a condition's settings (the
// engine's role set). Finished runs are rewritten whole, so a repeat gives
// the same records.
func Experiment(ctx context.Context, store Store, set bench.Set, e contract.ExperimentSpec, judge settings.Role, variant string,
	roles func(settings.Settings) (runner.Roles, error)) ([]Summary, error) {
	if variant == "" || strings.ContainsAny(variant, contract.VariantSep+"/ ") {
		return nil, fmt.Errorf("rescore: variant %q: want a name without %q, '/' or spaces", variant, contract.VariantSep)
	}
	var out []Summary
	lib := corpus.NewLibrary(set)
	for i, c := range e.Conditions {
		if c.Kind != contract.KindHeldOut || strings.Contains(c.Name, contract.VariantSep) {
			continue
		}
		s, err := e.SettingsOf(i)
		if err != nil {
			return out, err
		}
		b, err := set.Of(s)
		if err != nil {
			return out, fmt.Errorf("rescore %s: %w", c.Name, err)
		}
		s = s.Clone()
		s.Roles["judge"] = judge
		r, err := roles(s)
		if err != nil {
			return out, fmt.Errorf("rescore %s: %w", c.Name, err)
		}
		ref := c.Corpus
		if ref == "" {
			ref = e.HeldOut
		}
		cp, err := lib.Load(ref)
		if err != nil {
			return out, fmt.Errorf("rescore %s: %w", c.Name, err)
		}
		sum, err := Run(ctx, store, b, e.RunID(c.Name), e.VariantRunID(c.Name, variant), s, r, cp.Case)
		if err != nil {
			return out, err
		}
		out = append(out, sum)
	}
	return out, nil
}

// Run re-scores every record of run source under the roles' judge into run
// target, with the trace of each episode as it was recorded: the events are
// not replayed, only scored again: by the benchmark's own rule where it has
// one (Rescorer), else by its whole scoring. bm is the run's benchmark;
// cases finds a record's case.
func Run(ctx context.Context, store Store, bm bench.Benchmark, source, target string, s settings.Settings, roles runner.Roles,
	cases func(id string) (clinic.Case, bool)) (Summary, error) {
	sum := Summary{Source: source, Run: target}
	recs, err := store.Records(ctx, source)
	if err != nil {
		return sum, fmt.Errorf("rescore %s: %w", source, err)
	}
	if len(recs) == 0 {
		return sum, fmt.Errorf("rescore %s: the run has no records", source)
	}
	b, err := json.Marshal(spec{Source: source, Variant: strings.TrimPrefix(target, source+contract.VariantSep), Judge: s.Roles["judge"], Settings: s})
	if err != nil {
		return sum, fmt.Errorf("rescore %s: %w", source, err)
	}
	if err := store.PutRun(ctx, results.Run{Run: target, Kind: Kind, Spec: b}); err != nil {
		return sum, fmt.Errorf("rescore %s: %w", source, err)
	}
	var judge grader.Judge = roles.Judge
	for _, rec := range recs {
		_, tr, err := store.RecordTrace(ctx, rec.EpisodeID)
		if err != nil {
			return sum, fmt.Errorf("rescore %s: %w", rec.EpisodeID, err)
		}
		c, ok := cases(rec.CaseID)
		if !ok {
			return sum, fmt.Errorf("rescore %s: case %q is not in the condition's corpus", rec.EpisodeID, rec.CaseID)
		}
		if tr.Scores == nil {
			return sum, fmt.Errorf("rescore %s: the recorded trace has no scores", rec.EpisodeID)
		}
		env, err := bm.Start(c, s, roles.Env, tr.Events)
		if err != nil {
			return sum, fmt.Errorf("rescore %s: %w", rec.EpisodeID, err)
		}
		sc, err := score(ctx, bm, &c, s, env, *tr.Scores, judge)
		if err != nil {
			return sum, fmt.Errorf("rescore %s: %w", rec.EpisodeID, err)
		}
		sum.Before += rec.Scores.S
		sum.After += sc.S
		id := target + strings.TrimPrefix(rec.EpisodeID, source)
		rec.EpisodeID, rec.Run, rec.Scores = id, target, sc
		tr.EpisodeID, tr.RunID, tr.Scores = id, target, &sc
		if err := store.PutRecord(ctx, rec, tr); err != nil {
			return sum, fmt.Errorf("rescore %s: %w", id, err)
		}
	}
	sum.Episodes = len(recs)
	sum.Before /= float64(len(recs))
	sum.After /= float64(len(recs))
	res, err := json.Marshal(sum)
	if err != nil {
		return sum, fmt.Errorf("rescore %s: %w", source, err)
	}
	if err := store.CompleteRun(ctx, target, Kind, res); err != nil {
		return sum, fmt.Errorf("rescore %s: %w", source, err)
	}
	return sum, nil
}

// Rescorer is a benchmark that says what a judge substitution changes in a
// recorded episode's scores, where it is less than scoring it again (a
// capability: the run's benchmark may implement it).
type Rescorer interface {
	Rescore(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, old clinic.Scores, judge grader.Judge) (clinic.Scores, error)
}

// score scores a recorded episode again under judge: the benchmark's own
// rule where it has one, else its whole scoring.
func score(ctx context.Context, b bench.Benchmark, c *clinic.Case, s settings.Settings, env episode.Env, old clinic.Scores, judge grader.Judge) (clinic.Scores, error) {
	if err := bench.CheckJudge(b, judge); err != nil {
		return clinic.Scores{}, err
	}
	if r, ok := b.(Rescorer); ok {
		return r.Rescore(ctx, c, s, env, old, judge)
	}
	return b.Score(ctx, bench.ScoreInput{Case: c, Settings: s, Env: env, Judge: judge})
}
