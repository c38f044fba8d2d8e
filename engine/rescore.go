package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/rescore"
	"github.com/clinevo/clinevo/settings"
)

// Rescore re-scores the held-out baseline conditions of finished experiment
// name, as it recorded its spec, under judge into runs
// <name>-<condition>@<variant> (rescore.Experiment, with this engine's
// roles), and says on w how each run's mean S moved, also for the runs it
// re-scored before an error.
func (e *Engine) Rescore(ctx context.Context, name string, judge settings.Role, variant string, w io.Writer) error {
	spec, err := recorded.Experiment(ctx, e.Results, name, e.DataDir())
	if err != nil {
		return err
	}
	sums, err := rescore.Experiment(ctx, e.Results, e.Benchmarks, spec, judge, variant, e.Roles)
	for _, s := range sums {
		fmt.Fprintf(w, "%s -> %s: %d episodes, mean S %.3f -> %.3f\n", s.Source, s.Run, s.Episodes, s.Before, s.After)
	}
	return err
}
