package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/workflows"
)

// StartStream starts a stream under its stable workflow ID, <run>/stream; a
// stream of that ID already running is an error, not a handle on it.
func StartStream(ctx context.Context, c client.Client, taskQueue string, s contract.StreamSpec) (client.WorkflowRun, error) {
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.StreamWorkflowID(s.RunID), TaskQueue: orQueue(taskQueue), WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrRun.ValueSet(s.RunID),
			workflows.AttrKind.ValueSet(string(contract.KindStream)), workflows.AttrPass.ValueSet(int64(s.Pass))),
		StaticSummary: fmt.Sprintf("clinevo stream %s (%s, memory %s, profile %s)", s.RunID, s.Corpus, s.Memory, s.Settings.Profile),
	}, workflows.StreamWorkflow, s)
	if err != nil {
		return nil, fmt.Errorf("start stream %s: %w", s.RunID, err)
	}
	return run, nil
}

// StartExperiment starts an experiment under its stable workflow ID,
// <name>/experiment; one already running is an error.
func StartExperiment(ctx context.Context, c client.Client, taskQueue string, spec contract.ExperimentSpec) (client.WorkflowRun, error) {
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.ExperimentWorkflowID(spec.Name), TaskQueue: orQueue(taskQueue), WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrRun.ValueSet(spec.Name), workflows.AttrKind.ValueSet(string(contract.KindExperiment))),
		StaticSummary:         "clinevo experiment " + spec.Name,
	}, workflows.ExperimentWorkflow, spec)
	if err != nil {
		return nil, fmt.Errorf("start experiment %s: %w", spec.Name, err)
	}
	return run, nil
}

func orQueue(q string) string {
	if q == "" {
		return contract.TaskQueue
	}
	return q
}

// CarryFrom makes s continue the memory lineage of the finished stream run
// from: its memory runs, its last episode number (so "as of" stays meaningful
// and the earlier run's as-of view is never rewritten) and its rule book, all
// taken from the completion it recorded. A run that has not finished has no
// completion, and is refused.
func CarryFrom(ctx context.Context, store results.RunLog, s contract.StreamSpec, from string) (contract.StreamSpec, error) {
	raw, err := store.RunResult(ctx, from)
	if errors.Is(err, results.ErrNotFound) {
		return s, fmt.Errorf("carry from %s: the run has not finished (no completion recorded); a carry run continues a finished stream", from)
	}
	if err != nil {
		return s, fmt.Errorf("carry from %s: %w", from, err)
	}
	var r contract.StreamResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return s, fmt.Errorf("carry from %s: recorded result: %w", from, err)
	}
	if r.Run != from || len(r.MemoryRuns) == 0 {
		return s, fmt.Errorf("carry from %s: not a stream with memory (memory runs %v)", from, r.MemoryRuns)
	}
	return r.CarryFrom(s), nil
}
