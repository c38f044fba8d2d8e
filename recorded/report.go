package recorded

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
)

// Report writes the report of name into dir: the report of one stream when
// the store records a stream run of that name, else an experiment's. set
// are the build's benchmarks.
func Report(ctx context.Context, store results.Store, set bench.Set, name, dir string) (analysis.Report, error) {
	run, err := runOf(ctx, store, name, contract.KindStream)
	if err != nil {
		return analysis.Report{}, err
	}
	if run == nil {
		return ExperimentReport(ctx, store, set, name, dir)
	}
	in, err := analysis.LoadStream(ctx, store, set, name, corpus.NewLibrary(set).Load)
	if err != nil {
		return analysis.Report{}, err
	}
	return write(ctx, store, in, dir)
}

// WriteReport writes the report of name into dir (Report) and its summary
// (analysis.WriteSummary) to w, with where its page is.
func WriteReport(ctx context.Context, w io.Writer, store results.Store, set bench.Set, name, dir string) error {
	rep, err := Report(ctx, store, set, name, dir)
	if err != nil {
		return err
	}
	analysis.WriteSummary(w, rep)
	fmt.Fprintf(w, "report: %s\n", filepath.Join(dir, "index.html"))
	return nil
}

// ExperimentReport gathers an experiment's results and writes its report
// into dir.
func ExperimentReport(ctx context.Context, store results.Store, set bench.Set, name, dir string) (analysis.Report, error) {
	in, err := analysis.Load(ctx, store, set, name)
	if err != nil {
		return analysis.Report{}, err
	}
	return write(ctx, store, in, dir)
}

func write(ctx context.Context, store results.Store, in analysis.Input, dir string) (analysis.Report, error) {
	rep := analysis.Build(in)
	return rep, analysis.Write(dir, rep, analysis.StoreTraces(ctx, store))
}

// Experiment is the spec experiment name recorded when it started; the
// error for an experiment the store does not record says it is not in
// where (the data directory) and how to give the spec instead.
func Experiment(ctx context.Context, store results.RunLog, name, where string) (contract.ExperimentSpec, error) {
	run, err := runOf(ctx, store, name, contract.KindExperiment)
	if err != nil {
		return contract.ExperimentSpec{}, err
	}
	if run == nil {
		return contract.ExperimentSpec{}, fmt.Errorf("experiment %q is not in %s (pass --file)", name, where)
	}
	var spec contract.ExperimentSpec
	return spec, json.Unmarshal(run.Spec, &spec)
}

// ResumeSpec is the spec experiment name resumes with: the one in file,
// read with load, when file is given, else the one it recorded
// (Experiment; where names the data directory). A spec that names another
// experiment is refused.
func ResumeSpec(ctx context.Context, store results.RunLog, name, where, file string,
	load func(file string) (contract.ExperimentSpec, error)) (contract.ExperimentSpec, error) {
	var spec contract.ExperimentSpec
	var err error
	if file != "" {
		spec, err = load(file)
	} else {
		spec, err = Experiment(ctx, store, name, where)
	}
	if err == nil && spec.Name != name {
		err = fmt.Errorf("experiment resume %s: %s names experiment %s", name, file, spec.Name)
	}
	return spec, err
}

// runOf is the run of the store named name of kind, nil when there is none.
func runOf(ctx context.Context, store results.RunLog, name string, kind contract.Kind) (*results.Run, error) {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.Run == name && r.Kind == string(kind) {
			return &r, nil
		}
	}
	return nil, nil
}

// StreamRecords are the records of an experiment's stream conditions, in
// the order of recs, with each stream's run labelled by its condition's
// title (for a stage table).
func StreamRecords(spec contract.ExperimentSpec, recs []results.Record) ([]results.Record, map[string]string) {
	labels := map[string]string{}
	for _, cd := range spec.Conditions {
		if cd.Kind == contract.KindStream {
			labels[spec.RunID(cd.Name)] = cd.Title()
		}
	}
	var streams []results.Record
	for _, rec := range recs {
		if _, ok := labels[rec.Run]; ok {
			streams = append(streams, rec)
		}
	}
	return streams, labels
}
