package progress

import (
	"context"
	"io"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/internal/textfmt"
	"github.com/clinevo/clinevo/runstatus"
)

// Output is where a command that waits for what it started writes: the
// progress on Progress, then on Out the result as JSON (with JSON) or the
// status tables.
type Output struct {
	Out, Progress io.Writer
	JSON          bool
	// ShowsU says whether a benchmark scores U, which the tables then show.
	ShowsU func(benchmark string) bool
}

// Stream follows stream runID (started as run) to its end, then writes its
// result or status (runstatus.WriteStream).
func (o Output) Stream(ctx context.Context, c client.Client, run client.WorkflowRun, runID string) error {
	if err := Follow(ctx, o.Progress, run, StreamRows(c, runID)); err != nil {
		return err
	}
	if o.JSON {
		return result[contract.StreamResult](ctx, run, o.Out)
	}
	st, err := runstatus.StreamOf(ctx, c, runID)
	if err != nil {
		return err
	}
	return runstatus.WriteStream(o.Out, runID, st, o.ShowsU(st.Benchmark))
}

// Experiment follows experiment name (started as run) to its end, showing
// each condition's progress, then writes its result or every condition's
// status and results (runstatus.WriteExperiment).
func (o Output) Experiment(ctx context.Context, c client.Client, run client.WorkflowRun, name string) error {
	if err := Follow(ctx, o.Progress, run, ExperimentRows(c, name)); err != nil {
		return err
	}
	if o.JSON {
		return result[contract.ExperimentResult](ctx, run, o.Out)
	}
	ex, err := runstatus.ExperimentOf(ctx, c, name)
	if err != nil {
		return err
	}
	return runstatus.WriteExperiment(o.Out, ex, o.ShowsU)
}

// result writes the result of run, a T, to w as JSON.
func result[T any](ctx context.Context, run client.WorkflowRun, w io.Writer) error {
	var res T
	if err := run.Get(ctx, &res); err != nil {
		return err
	}
	return textfmt.JSON(w, res)
}
