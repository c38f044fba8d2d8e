package inspectlog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// Source is what Load reads a run from (a results store).
type Source interface {
	results.Episodes
	Runs(ctx context.Context) ([]results.Run, map[string]int, error)
}

// target is one log to build: a run with the corpus and settings it played.
type target struct {
	run      results.Run
	corpus   string
	settings settings.Settings
}

// Load builds the eval logs of a recorded run: one an Input of Inputs.
func Load(ctx context.Context, src Source, benches bench.Set, runID string) ([]Log, error) {
	ins, err := Inputs(ctx, src, benches, runID)
	if err != nil {
		return nil, err
	}
	logs := make([]Log, 0, len(ins))
	for _, in := range ins {
		logs = append(logs, Build(in))
	}
	return logs, nil
}

// Inputs are what a recorded run's logs are built from: one for a stream,
// a held-out run, a stage evaluation or a replay (any run `runs list`
// shows), and one a condition with episodes for an experiment, as
// inspect's eval sets write them. Each holds its records and traces, the
// cases of its corpus where the corpus loads (else the samples name the
// case only), and its benchmark (the one of benches its settings name). A
// run no store records is an error naming it, as is one with no episode.
func Inputs(ctx context.Context, src Source, benches bench.Set, runID string) ([]Input, error) {
	runs, _, err := src.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	targets, err := targetsOf(ctx, src, runs, runID)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	lib, cases := corpus.NewLibrary(benches), map[string]map[string]*clinic.Case{}
	var ins []Input
	for _, t := range targets {
		recs, err := src.Records(ctx, t.run.Run)
		if err != nil {
			return nil, fmt.Errorf("export: run %s: %w", t.run.Run, err)
		}
		if len(recs) == 0 {
			continue // a condition that has not played yet
		}
		if _, ok := cases[t.corpus]; !ok {
			cases[t.corpus] = casesOf(lib, t.corpus)
		}
		eps := make([]Episode, 0, len(recs))
		for _, r := range recs {
			_, tr, err := src.RecordTrace(ctx, r.EpisodeID)
			if err != nil {
				return nil, fmt.Errorf("export: episode %s: %w", r.EpisodeID, err)
			}
			eps = append(eps, Episode{Record: r, Trace: tr, Case: cases[t.corpus][r.CaseID]})
		}
		b, _ := benches.Of(t.settings) // a benchmark this build lacks: the shared reading of actions
		ins = append(ins, Input{Run: t.run, Settings: t.settings, Bench: b, Episodes: eps})
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("export: run %q has no recorded episode yet", runID)
	}
	return ins, nil
}

// casesOf are the cases of a corpus by ID; none when it does not load here
// (a file on another machine): the samples then name their cases only.
func casesOf(lib corpus.Library, ref string) map[string]*clinic.Case {
	out := map[string]*clinic.Case{}
	if ref == "" {
		return out
	}
	cp, err := lib.Load(ref)
	if err != nil {
		return out
	}
	for j := range cp.Cases {
		out[cp.Cases[j].ID] = &cp.Cases[j]
	}
	return out
}

// targetsOf are the logs runID exports: an experiment's conditions, or the
// run itself. A run the runs table lacks (a held-out condition, a stage
// evaluation, a replay) takes its settings and times from its stream or its
// experiment.
func targetsOf(ctx context.Context, src Source, runs []results.Run, runID string) ([]target, error) {
	if i := slices.IndexFunc(runs, func(r results.Run) bool { return r.Run == runID }); i >= 0 {
		if runs[i].Kind == string(contract.KindExperiment) {
			return conditionsOf(runs, runs[i])
		}
		return []target{runTarget(runs[i])}, nil
	}
	recs, err := src.Records(ctx, runID)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("run %q is not recorded (clinevo runs list names the runs)", runID)
	}
	return []target{parentOf(runs, runID, recs[0])}, nil
}

// runTarget is a recorded stream (or a run of an older build) with the
// corpus and settings of its spec.
func runTarget(run results.Run) target {
	var spec struct {
		Corpus   string            `json:"corpus"`
		Settings settings.Settings `json:"settings"`
	}
	_ = json.Unmarshal(run.Spec, &spec) // a spec of an older build: no corpus and the default settings
	return target{run: run, corpus: spec.Corpus, settings: spec.Settings.OrDefault()}
}

// conditionsOf are an experiment's conditions, each with its settings and
// corpus; one its runs table lacks (held out) has the experiment's times.
func conditionsOf(runs []results.Run, exp results.Run) ([]target, error) {
	var spec contract.ExperimentSpec
	if err := json.Unmarshal(exp.Spec, &spec); err != nil {
		return nil, fmt.Errorf("experiment %s: its recorded spec: %w", exp.Run, err)
	}
	var out []target
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return nil, err
		}
		run := results.Run{Run: spec.RunID(c.Name), Kind: string(c.Kind), Created: exp.Created, Completed: exp.Completed}
		if j := slices.IndexFunc(runs, func(r results.Run) bool { return r.Run == run.Run }); j >= 0 {
			run = runs[j]
		}
		out = append(out, target{run: run, corpus: spec.CorpusOf(c), settings: s})
	}
	return out, nil
}

// parentOf is a run the runs table lacks, described by what it belongs to:
// the stream of a stage evaluation or replay, else the experiment one of
// whose conditions it is, else nothing (the default settings, exported
// now, not completed).
func parentOf(runs []results.Run, runID string, first results.Record) target {
	run := results.Run{Run: runID, Kind: first.Kind}
	if stream := contract.StreamOfRunID(runID); stream != runID {
		if i := slices.IndexFunc(runs, func(r results.Run) bool { return r.Run == stream }); i >= 0 {
			t := runTarget(runs[i])
			run.Created, run.Completed = runs[i].Created, runs[i].Completed
			t.run = run
			return t
		}
	}
	for _, r := range runs {
		if r.Kind != string(contract.KindExperiment) {
			continue
		}
		ts, err := conditionsOf(runs, r)
		if err != nil {
			continue // an experiment whose spec this build cannot read: not this run's
		}
		for _, t := range ts {
			if t.run.Run == runID {
				t.run.Kind = first.Kind
				return t
			}
		}
	}
	run.Created = time.Now().UTC().Format(time.RFC3339)
	return target{run: run, settings: settings.Default()}
}
