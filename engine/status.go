package engine

import (
	"context"
	"errors"
	"slices"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
)

// StreamStatus is stream run's status from Temporal (runstatus.StreamOf)
// with its model endpoints' figures (runstatus.Endpoints) from the results
// store o names, opened for reading. The status is Temporal's: a store this
// process cannot read (an older schema, a database down) costs only the
// endpoint figures, and the status says why (StoreError).
func StreamStatus(ctx context.Context, c client.Client, o Options, run string) (runstatus.Stream, error) {
	st, err := runstatus.StreamOf(ctx, c, run)
	if err != nil {
		return st, err
	}
	if err := withRecorded(ctx, o, func(store results.Store) error {
		u, err := store.RunUsage(ctx, run)
		if err != nil {
			return err
		}
		st.Endpoints = runstatus.Endpoints(u)
		if st.Progress == nil || !runstatus.Closed(st.Status) {
			return nil
		}
		recs, err := store.Records(ctx, run)
		st.StageMeans = stageMeans(recs)
		return err
	}); err != nil {
		st.StoreError = err.Error()
	}
	return st, nil
}

// stageMeans are the means of a run's records per stage, in stage order.
func stageMeans(recs []results.Record) []runstatus.StageMeans {
	var out []runstatus.StageMeans
	for _, m := range analysis.StageMeans(recs) {
		out = append(out, runstatus.StageMeans{Stage: m.Stage, Means: runstatus.RoundMeans(contract.Means{N: m.N, S: m.S,
			Strict: m.Strict, U: m.U, T: m.T, E: m.E, Cost: m.Cost})})
	}
	slices.SortFunc(out, func(a, b runstatus.StageMeans) int { return a.Stage - b.Stage })
	return out
}

// ExperimentStatus is experiment name's status from Temporal
// (runstatus.ExperimentOf) with its plan beside its use so far, from the
// records of the results store o names (Experiment.AddUse; set are the
// build's benchmarks). Without the store only the plan is missing, and the
// status says why (PlanError).
func ExperimentStatus(ctx context.Context, c client.Client, o Options, set bench.Set, name string) (runstatus.Experiment, error) {
	ex, err := runstatus.ExperimentOf(ctx, c, name)
	if err != nil {
		return ex, err
	}
	if err := withRecorded(ctx, o, func(store results.Store) error {
		recs, err := store.Records(ctx, "")
		ex.AddUse(set, recs)
		return err
	}); err != nil {
		ex.PlanError = err.Error()
	}
	return ex, nil
}

// Plan estimates experiment spec (costplan.EstimateOf) from the records of
// the results store o names: none where nothing has run yet.
func Plan(ctx context.Context, o Options, set bench.Set, spec contract.ExperimentSpec) (costplan.Estimate, error) {
	var recs []results.Record
	if err := withRecorded(ctx, o, func(store results.Store) (err error) {
		recs, err = store.Records(ctx, "")
		return err
	}); err != nil {
		return costplan.Estimate{}, err
	}
	return costplan.EstimateOf(set, spec, recs)
}

// RunBenchmark is the benchmark a recorded run played, of the build's; nil
// when the results store holds no spec naming the run or the build lacks
// its benchmark: its traces are then read the shared way, as the viewer
// reads them.
func (e *Engine) RunBenchmark(ctx context.Context, run string) (bench.Benchmark, error) {
	src, err := results.SourceOfRun(ctx, e.Results, run)
	if errors.Is(err, results.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := e.Benchmarks.Of(src.Settings)
	if err != nil {
		return nil, nil // not an error: a benchmark this build does not have: the shared reading
	}
	return b, nil
}

// withRecorded runs fn with the results store o names, opened for reading,
// when something has run there; it does not call fn otherwise.
func withRecorded(ctx context.Context, o Options, fn func(results.Store) error) error {
	o.ReadOnly = true
	return WithResults(ctx, o, func(store results.Store) error {
		if store == nil {
			return nil
		}
		return fn(store)
	})
}
