package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
)

// ErrNotRunning is returned (wrapped) by Terminate for a run whose workflow
// is not running: there is nothing to end.
var ErrNotRunning = errors.New("not running")

// Terminated is what Terminate ended and recorded.
type Terminated struct {
	// Workflows are the workflow IDs it terminated: the run's first, then
	// every workflow under it that still ran (episodes, evaluations, an
	// experiment's conditions and theirs).
	Workflows []string
	// Recorded are the runs whose description in the results store now says
	// why; a run the store does not describe yet keeps its reason in
	// Temporal only.
	Recorded []string
}

// Terminate ends a stuck run for good: the workflow of run (a stream's, an
// experiment's or an evaluation's, as kind says) and every workflow under it
// that still runs, each with reason, which Temporal keeps in its history;
// then it records reason with the run's description in the results store
// (an experiment's conditions' too), so that `stream status`, `experiment
// status` and the viewer say "terminated: <reason>". Records, traces and
// cards already written stay as they are and readable; `stream restart`
// continues a terminated stream. A run whose workflow is not running is an
// error wrapping ErrNotRunning, and nothing changes.
func Terminate(ctx context.Context, c client.Client, store results.RunLog, kind contract.Kind, run, reason string) (Terminated, error) {
	root := terminateID(kind, run)
	d, err := c.DescribeWorkflowExecution(ctx, root, "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return Terminated{}, fmt.Errorf("terminate %s %s: no workflow %s in Temporal: %w", kind, run, root, ErrNotRunning)
	case err != nil:
		return Terminated{}, fmt.Errorf("terminate %s %s: %w", kind, run, err)
	case d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return Terminated{}, fmt.Errorf("terminate %s %s: workflow %s is %s: %w", kind, run, root,
			strings.ToLower(d.GetWorkflowExecutionInfo().GetStatus().String()), ErrNotRunning)
	}
	ids := []string{root}
	if ids, err = underneath(ctx, c, root, ids); err != nil {
		return Terminated{}, fmt.Errorf("terminate %s %s: %w", kind, run, err)
	}
	var out Terminated
	for _, id := range ids {
		// The parent first, so that it starts nothing more; a child it
		// closed in between (the server terminates children with their
		// parent) is not an error, and it is one this call ended: it was
		// running when underneath listed it.
		err := c.TerminateWorkflow(ctx, id, "", reason)
		if err != nil && !errors.As(err, &nf) {
			return out, fmt.Errorf("terminate %s %s: workflow %s: %w", kind, run, id, err)
		}
		if err == nil || id != root {
			out.Workflows = append(out.Workflows, id)
		}
	}
	runs := []string{run}
	if kind == contract.KindExperiment {
		var spec contract.ExperimentSpec
		if err := runstatus.StartInput(ctx, c, root, &spec); err == nil {
			for _, cd := range spec.Conditions {
				runs = append(runs, spec.RunID(cd.Name))
			}
		}
	}
	return out, out.record(ctx, store, runs, reason)
}

// Write says what Terminate ended of run (a what: stream, experiment,
// evaluation) and where the reason is kept.
func (t Terminated) Write(w io.Writer, what, run string) {
	fmt.Fprintf(w, "terminated %s %s: %d workflows (%s)\n", what, run, len(t.Workflows), strings.Join(t.Workflows, ", "))
	if len(t.Recorded) > 0 {
		fmt.Fprintf(w, "reason recorded with runs %s in the results store\n", strings.Join(t.Recorded, ", "))
	} else {
		fmt.Fprintln(w, "reason kept in Temporal's history only (the results store describes no such run)")
	}
}

// record keeps reason with every run of runs that the store describes.
func (t *Terminated) record(ctx context.Context, store results.RunLog, runs []string, reason string) error {
	if store == nil {
		return nil
	}
	for _, r := range runs {
		err := store.TerminateRun(ctx, r, reason)
		if errors.Is(err, results.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("terminate: record why in the results store: %w", err)
		}
		t.Recorded = append(t.Recorded, r)
	}
	return nil
}

// terminateID is the workflow ID of a run of kind.
func terminateID(kind contract.Kind, run string) string {
	switch kind {
	case contract.KindStream:
		return contract.StreamWorkflowID(run)
	case contract.KindExperiment:
		return contract.ExperimentWorkflowID(run)
	}
	return contract.EvaluationWorkflowID(run)
}

// underneath appends to ids every workflow under id that is still running:
// its pending children, theirs, and so on.
func underneath(ctx context.Context, c client.Client, id string, ids []string) ([]string, error) {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return ids, nil // closed and gone meanwhile
	}
	if err != nil {
		return ids, err
	}
	for _, ch := range d.GetPendingChildren() {
		if slices.Contains(ids, ch.GetWorkflowId()) {
			continue
		}
		ids = append(ids, ch.GetWorkflowId())
		if ids, err = underneath(ctx, c, ch.GetWorkflowId(), ids); err != nil {
			return ids, err
		}
	}
	return ids, nil
}
