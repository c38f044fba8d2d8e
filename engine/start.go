package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/workflows"
)

// ErrRunExists is returned (wrapped) when asked to start a run whose run ID
// names a run already: a run ID names one run, forever.
var ErrRunExists = errors.New("a run ID names one run")

// StartStream starts a new stream under its stable workflow ID, <run>/stream.
// A run ID that names a run already, in any state (a workflow of that ID in
// Temporal, or its description or records in the results store), is refused
// before anything is written, with what to do instead (ErrRunExists);
// Temporal's workflow-ID reuse policy refuses it too, should another start
// slip in between, and so does the results store (the run's claim).
func StartStream(ctx context.Context, c client.Client, store results.RunLog, taskQueue string, s contract.StreamSpec) (client.WorkflowRun, error) {
	if err := contract.ValidateRunID(s.RunID); err != nil {
		return nil, fmt.Errorf("start stream: %w", err)
	}
	if err := notACondition(ctx, c, store, s.RunID); err != nil {
		return nil, err
	}
	if err := unclaimed(ctx, c, store, "stream", s.RunID, contract.StreamWorkflowID(s.RunID)); err != nil {
		return nil, err
	}
	return startStream(ctx, c, taskQueue, s, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
}

// notACondition refuses a stream run ID that an experiment claims for one
// of its conditions: one the results store describes as claiming it, or
// one running in Temporal that names it (an experiment claims its
// conditions from its start, before its description reaches the store).
func notACondition(ctx context.Context, c client.Client, store results.RunLog, run string) error {
	exp, cond, ok := "", "", false
	if store != nil {
		runs, _, err := store.Runs(ctx)
		if err != nil {
			return fmt.Errorf("start stream %s: look for experiments in the results store: %w", run, err)
		}
		exp, cond, ok = results.ConditionClaim(runs, run)
	}
	for i := 0; !ok && i < len(run); i++ {
		if run[i] == '-' {
			exp, cond, ok = runningCondition(ctx, c, run[:i], run)
		}
	}
	if !ok {
		return nil
	}
	return fmt.Errorf("start stream %s: the run ID is claimed by experiment %s (its condition %s): %w; %s", run, exp, cond, ErrRunExists, activities.ConditionClaimFix)
}

// runningCondition reports whether experiment name runs in Temporal with a
// condition whose run ID is run, as the input it started with says.
func runningCondition(ctx context.Context, c client.Client, name, run string) (string, string, bool) {
	id := contract.ExperimentWorkflowID(name)
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil || d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return "", "", false // no such experiment running: nothing claims the ID here
	}
	var spec contract.ExperimentSpec
	if runstatus.StartInput(ctx, c, id, &spec) != nil {
		return "", "", false
	}
	spec.ClaimsConditions = true // a running experiment plays every condition it names
	if cond, ok := spec.ConditionOf(run); ok {
		return name, cond.Name, true
	}
	return "", "", false
}

// startStream starts a stream; reuse says which closed workflow of its ID
// may be there (none for a new stream, a failed one for a restart).
func startStream(ctx context.Context, c client.Client, taskQueue string, s contract.StreamSpec, reuse enumspb.WorkflowIdReusePolicy) (client.WorkflowRun, error) {
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.StreamWorkflowID(s.RunID), TaskQueue: orQueue(taskQueue), WorkflowExecutionErrorWhenAlreadyStarted: true,
		WorkflowIDReusePolicy: reuse, WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrRun.ValueSet(s.RunID),
			workflows.AttrKind.ValueSet(string(contract.KindStream)), workflows.AttrPass.ValueSet(int64(s.Pass))),
		StaticSummary: fmt.Sprintf("clinevo stream %s (%s, memory %s, profile %s)", s.RunID, s.Corpus, s.Memory, s.Settings.Benchmark),
	}, workflows.StreamWorkflow, s)
	if err != nil {
		return nil, startError("stream", s.RunID, err)
	}
	return run, nil
}

// StartExperiment starts a new experiment under its stable workflow ID,
// <name>/experiment; a name that names a run already is refused as
// StartStream refuses a stream's (ErrRunExists), and so is a condition's run
// ID that names a run.
func StartExperiment(ctx context.Context, c client.Client, store results.RunLog, taskQueue string, spec contract.ExperimentSpec) (client.WorkflowRun, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("start %w", err)
	}
	if err := unclaimed(ctx, c, store, "experiment", spec.Name, contract.ExperimentWorkflowID(spec.Name)); err != nil {
		return nil, err
	}
	for _, cond := range spec.Conditions {
		run := spec.RunID(cond.Name)
		id := contract.StreamWorkflowID(run)
		if cond.Kind != contract.KindStream {
			id = contract.EvaluationWorkflowID(run)
		}
		if err := unclaimed(ctx, c, store, "experiment", spec.Name, id, run); err != nil {
			return nil, err
		}
	}
	return startExperiment(ctx, c, taskQueue, spec, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
}

func startExperiment(ctx context.Context, c client.Client, taskQueue string, spec contract.ExperimentSpec, reuse enumspb.WorkflowIdReusePolicy) (client.WorkflowRun, error) {
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.ExperimentWorkflowID(spec.Name), TaskQueue: orQueue(taskQueue), WorkflowExecutionErrorWhenAlreadyStarted: true,
		WorkflowIDReusePolicy: reuse, WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrRun.ValueSet(spec.Name), workflows.AttrKind.ValueSet(string(contract.KindExperiment))),
		StaticSummary:         "clinevo experiment " + spec.Name,
	}, workflows.ExperimentWorkflow, spec)
	if err != nil {
		return nil, startError("experiment", spec.Name, err)
	}
	return run, nil
}

// unclaimed refuses a run ID (of a stream or an experiment, what) that names
// a run: a workflow of ID workflowID in Temporal, in any state, or the run
// (or, for an experiment's condition, the condition's run) in the results
// store, described or with records.
func unclaimed(ctx context.Context, c client.Client, store results.RunLog, what, run, workflowID string, condition ...string) error {
	var found []string
	desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	finished := false
	switch {
	case err == nil:
		found = append(found, fmt.Sprintf("workflow %s is %s", workflowID, strings.ToLower(desc.GetWorkflowExecutionInfo().GetStatus().String())))
		finished = desc.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	case !errors.As(err, &nf):
		return fmt.Errorf("start %s %s: look for workflow %s: %w", what, run, workflowID, err)
	}
	name := run
	if len(condition) > 0 {
		name = condition[0]
	}
	if store != nil {
		runs, counts, err := store.Runs(ctx)
		if err != nil {
			return fmt.Errorf("start %s %s: look for run %s in the results store: %w", what, run, name, err)
		}
		if slices.ContainsFunc(runs, func(r results.Run) bool { return r.Run == name }) {
			found = append(found, "the results store describes it")
		}
		if n := counts[name]; n > 0 {
			found = append(found, fmt.Sprintf("%d episode records", n))
		}
		if _, err := store.RunResult(ctx, name); err == nil {
			finished = true // its result is recorded, whichever Temporal ran it
		}
	}
	if len(found) == 0 {
		return nil
	}
	subject := fmt.Sprintf("%s %s", what, run)
	if name != run {
		subject = fmt.Sprintf("experiment %s: condition run %s", run, name)
	}
	fix := activities.RunExistsFix(what, run)
	if finished && name == run {
		// A finished run is not restarted (RestartStream refuses it).
		fix = activities.FinishedFix(what, run)
	}
	return fmt.Errorf("%s already exists (%s): %w; %s", subject, strings.Join(found, "; "), ErrRunExists, fix)
}

// startError explains a refused start: a workflow of the run's ID exists.
func startError(what, run string, err error) error {
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("start %s %s: %w (Temporal: %v); %s", what, run, ErrRunExists, err, activities.RunExistsFix(what, run))
	}
	return fmt.Errorf("start %s %s: %w", what, run, err)
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
