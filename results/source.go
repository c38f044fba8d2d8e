package results

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
)

// RunSource is what an episode was played with: its corpus, settings and memory
// lineage, read from its run's recorded spec.
type RunSource struct {
	Corpus     string
	Settings   settings.Settings
	MemoryRuns []string
}

// SourceOfRun finds a run's corpus, settings and memory lineage in the results
// store (an error wrapping ErrNotFound when no spec names it): a stream's
// recorded spec; for its stage evaluations and replays the stream's; for a
// held-out condition its experiment's spec and the lineage of the stream it
// reads memory from.
func SourceOfRun(ctx context.Context, store RunLog, run string) (RunSource, error) {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return RunSource{}, err
	}
	stream := contract.StreamOfRunID(run)
	for _, r := range runs {
		if r.Run == stream && r.Kind == string(contract.KindStream) {
			var spec contract.StreamSpec
			if err := json.Unmarshal(r.Spec, &spec); err != nil {
				return RunSource{}, fmt.Errorf("run %s: stored spec: %w", r.Run, err)
			}
			spec = spec.WithDefaults()
			return RunSource{Corpus: spec.Corpus, Settings: spec.Settings, MemoryRuns: spec.MemoryRuns()}, nil
		}
	}
	for _, r := range runs {
		if r.Kind != string(contract.KindExperiment) {
			continue
		}
		var spec contract.ExperimentSpec
		if err := json.Unmarshal(r.Spec, &spec); err != nil {
			return RunSource{}, fmt.Errorf("experiment %s: stored spec: %w", r.Run, err)
		}
		for i, c := range spec.Conditions {
			if spec.RunID(c.Name) != run || c.Kind != contract.KindHeldOut {
				continue
			}
			set, err := spec.SettingsOf(i)
			if err != nil {
				return RunSource{}, err
			}
			src := RunSource{Corpus: c.Corpus, Settings: set}
			if src.Corpus == "" {
				src.Corpus = spec.HeldOut
			}
			if c.From != "" {
				raw, err := store.RunResult(ctx, spec.RunID(c.From))
				if err != nil {
					return RunSource{}, fmt.Errorf("held-out %s: the result of %s: %w", run, c.From, err)
				}
				var res contract.StreamResult
				if err := json.Unmarshal(raw, &res); err != nil {
					return RunSource{}, fmt.Errorf("held-out %s: the result of %s: %w", run, c.From, err)
				}
				src.MemoryRuns = res.MemoryRuns
			}
			return src, nil
		}
	}
	return RunSource{}, fmt.Errorf("run %s: no recorded stream or experiment spec names it: %w", run, ErrNotFound)
}
