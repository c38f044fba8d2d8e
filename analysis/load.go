package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Load gathers a finished experiment from the results store: its spec, its
// result, every record of its runs, each stream's environment, and the
// openings of the corpora it played. A corpus that no longer loads, or no
// longer holds a case a condition played, is an error naming both: the
// recall/transfer split would otherwise be silently wrong.
func Load(ctx context.Context, store results.Store, set bench.Set, name string) (Input, error) {
	in, finished, err := LoadLive(ctx, store, set, name, corpus.NewLibrary(set).Load)
	if err != nil {
		return in, err
	}
	if !finished {
		return in, fmt.Errorf("experiment %s has not finished (see clinevo experiment status %s)", name, name)
	}
	return in, nil
}

// LoadLive gathers an experiment as it stands. A finished one (finished true)
// reads as Load reads it; for one still running, each condition's run is
// named by the spec and carries the result its run stored when it finished,
// so the report covers the records written so far. set are the build's
// benchmarks; load reads a corpus by reference (corpus.Library.Load, or a
// cache of it for a page that polls).
func LoadLive(ctx context.Context, store results.Store, set bench.Set, name string, load func(ref string) (*corpus.Corpus, error)) (in Input, finished bool, err error) {
	in.Benchmarks = set
	if err := in.readRuns(ctx, store, name); err != nil {
		return in, false, err
	}
	if finished, err = in.readResult(ctx, store, name); err != nil {
		return in, false, err
	}
	if err := in.readRecords(ctx, store, name); err != nil {
		return in, false, err
	}
	if err := loadOpenings(&in, load); err != nil {
		return in, false, fmt.Errorf("experiment %s: %w", name, err)
	}
	return in, finished, nil
}

// readRuns reads experiment name's spec and every run's settings: a
// stream's from its stored spec, a held-out run's (which stores none) its
// condition's, as the experiment resolves them.
func (in *Input) readRuns(ctx context.Context, store results.RunLog, name string) error {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return err
	}
	found := false
	in.Settings = map[string]settings.Settings{}
	for _, r := range runs {
		switch {
		case r.Run == name && r.Kind == string(contract.KindExperiment):
			if err := json.Unmarshal(r.Spec, &in.Spec); err != nil {
				return fmt.Errorf("experiment %s: %w", name, err)
			}
			in.Run, found = r, true
		case r.Kind == string(contract.KindStream):
			var s contract.StreamSpec
			if err := json.Unmarshal(r.Spec, &s); err != nil {
				return fmt.Errorf("run %s: stored spec: %w", r.Run, err)
			}
			in.Settings[r.Run] = s.Settings.OrDefault()
		}
	}
	if !found {
		return fmt.Errorf("experiment %q is not in the results store: %w", name, results.ErrNotFound)
	}
	for i, c := range in.Spec.Conditions {
		if _, ok := in.Settings[in.Spec.RunID(c.Name)]; ok {
			continue
		}
		if s, err := in.Spec.SettingsOf(i); err == nil {
			in.Settings[in.Spec.RunID(c.Name)] = s.OrDefault()
		}
	}
	return nil
}

// readResult reads the experiment's result, or while it runs the partial
// result of its finished streams; finished says which.
func (in *Input) readResult(ctx context.Context, store results.RunLog, name string) (finished bool, err error) {
	raw, err := store.RunResult(ctx, name)
	switch {
	case err == nil:
		if err := json.Unmarshal(raw, &in.Result); err != nil {
			return false, fmt.Errorf("experiment %s: %w", name, err)
		}
		return true, nil
	case errors.Is(err, results.ErrNotFound):
		in.Result, err = partialResult(ctx, store, in.Spec)
		return false, err
	}
	return false, err
}

// readRecords reads the records of the experiment's runs and what breeding
// the development runs spent: a development run's child was bred before it
// was played, and its breeding is kept under <dev run>/breed, which no
// record holds.
func (in *Input) readRecords(ctx context.Context, store results.Store, name string) error {
	all, err := store.Records(ctx, "")
	if err != nil {
		return err
	}
	in.Records = map[string][]results.Record{}
	for _, r := range all {
		if strings.HasPrefix(r.Run, name+"-") {
			in.Records[r.Run] = append(in.Records[r.Run], r)
		}
	}
	in.Breeding = map[string]Spent{}
	for run := range in.Records {
		if !strings.Contains(run, "/dev/") {
			continue
		}
		key := run + "/breed"
		var sp Spent
		if sp.TimeMS, err = store.TimeOf(ctx, key); err != nil {
			return err
		}
		if sp.Usage, err = store.UsageOf(ctx, key); err != nil {
			return err
		}
		if len(sp.TimeMS) > 0 || len(sp.Usage) > 0 {
			in.Breeding[key] = sp
		}
	}
	return nil
}

// partialResult is the result of a running experiment: every condition under
// its run, with the stream result of the streams that have finished.
func partialResult(ctx context.Context, store results.RunLog, spec contract.ExperimentSpec) (contract.ExperimentResult, error) {
	out := contract.ExperimentResult{Name: spec.Name}
	for _, c := range spec.Conditions {
		cr := contract.ConditionResult{Name: c.Name, Kind: c.Kind, Run: spec.RunID(c.Name)}
		if c.Kind == contract.KindStream {
			raw, err := store.RunResult(ctx, cr.Run)
			switch {
			case err == nil:
				cr.Stream = &contract.StreamResult{}
				if err := json.Unmarshal(raw, cr.Stream); err != nil {
					return out, fmt.Errorf("experiment %s: condition %s: stored result: %w", spec.Name, c.Name, err)
				}
			case !errors.Is(err, results.ErrNotFound):
				return out, err
			}
		}
		out.Conditions = append(out.Conditions, cr)
	}
	return out, nil
}

// loadOpenings reads every corpus the experiment names into in.Openings and
// checks that each condition's corpus holds the cases its run played.
func loadOpenings(in *Input, load func(string) (*corpus.Corpus, error)) error {
	in.Openings = map[string]map[string]string{}
	for _, ref := range in.Spec.Corpora() {
		c, err := load(ref)
		if err != nil {
			return fmt.Errorf("openings for the recall/transfer split: %w", err)
		}
		m := make(map[string]string, len(c.Cases))
		for _, cs := range c.Cases {
			m[cs.ID] = textmatch.Normalize(cs.Patient.OpeningComplaint)
		}
		in.Openings[ref] = m
	}
	runs := map[string]string{}
	for _, c := range in.Result.Conditions {
		runs[c.Name] = c.Run
	}
	for _, c := range in.Spec.Conditions {
		ref := in.Spec.CorpusOf(c)
		for _, r := range in.Records[runs[c.Name]] {
			if _, ok := in.Openings[ref][r.CaseID]; !ok {
				return fmt.Errorf("condition %s: run %s played case %q, which corpus %s does not hold (was the corpus changed after the run?)", c.Name, r.Run, r.CaseID, ref)
			}
		}
	}
	return nil
}

// StoreTraces reads episode traces from the results store for Write.
func StoreTraces(ctx context.Context, store results.Episodes) TraceOf {
	return func(id string) (clinic.Trace, error) {
		_, t, err := store.RecordTrace(ctx, id)
		return t, err
	}
}
