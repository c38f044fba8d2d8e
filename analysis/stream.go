package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// LoadStream gathers one finished (or stopped) stream from the results store
// as a report of one condition, named by the run: its spec, its result, its
// records and those of its stage evaluations and retention replays, and the
// openings of its corpus. Build reports it as it reports a stream condition
// of an experiment: stage means and intervals, the trend diagnostics, the
// running means, the learning gain, the encounters split and, where the
// stream evaluated its stages, the retention matrix and BWT. A stream that
// has not finished is an error naming `stream status`.
func LoadStream(ctx context.Context, store results.Store, set bench.Set, run string, load func(ref string) (*corpus.Corpus, error)) (Input, error) {
	in := Input{Benchmarks: set}
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return in, err
	}
	var spec contract.StreamSpec
	found := false
	for _, r := range runs {
		if r.Run == run && r.Kind == string(contract.KindStream) {
			if err := json.Unmarshal(r.Spec, &spec); err != nil {
				return in, fmt.Errorf("stream %s: stored spec: %w", run, err)
			}
			in.Run, found = r, true
		}
	}
	if !found {
		return in, fmt.Errorf("stream %q is not in the results store: %w", run, results.ErrNotFound)
	}
	raw, err := store.RunResult(ctx, run)
	if errors.Is(err, results.ErrNotFound) {
		return in, fmt.Errorf("stream %s has not finished (see clinevo stream status %s)", run, run)
	}
	if err != nil {
		return in, err
	}
	var res contract.StreamResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return in, fmt.Errorf("stream %s: stored result: %w", run, err)
	}
	in.Stream = &spec
	in.Spec = contract.ExperimentSpec{Name: run, Corpus: spec.Corpus, Limit: spec.Limit, StageSize: spec.StageSize,
		Conditions: []contract.ConditionSpec{{Name: run, Kind: contract.KindStream, Memory: spec.Memory, StageEval: spec.StageEval, Retention: spec.Retention}}}
	in.Result = contract.ExperimentResult{Name: run, Conditions: []contract.ConditionResult{{Name: run, Kind: contract.KindStream, Run: run, Stream: &res}}}
	in.Settings = map[string]settings.Settings{run: spec.Settings.OrDefault()}
	all, err := store.Records(ctx, "")
	if err != nil {
		return in, err
	}
	in.Records = map[string][]results.Record{}
	for _, r := range all {
		if contract.StreamOfRunID(r.Run) == run {
			in.Records[r.Run] = append(in.Records[r.Run], r)
		}
	}
	if err := loadOpenings(&in, load); err != nil {
		return in, fmt.Errorf("stream %s: %w", run, err)
	}
	return in, nil
}
