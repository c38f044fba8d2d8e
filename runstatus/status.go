package runstatus

import (
	"context"
	"errors"
	"fmt"
	"math"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/results"
)

// The statuses a clinevo workflow shows, one vocabulary for the command line
// and the viewer. A stream that was stopped on request completes in
// Temporal's terms; here it is StatusStopped.
const (
	StatusPending    = "pending"    // not started yet (Temporal does not know the workflow)
	StatusRunning    = "running"    // playing episodes
	StatusPaused     = "paused"     // a stream paused by `stream pause`
	StatusStopping   = "stopping"   // a stream asked to stop, finishing its current episode
	StatusWaiting    = "waiting"    // waiting out a failing dependency (an activity retried)
	StatusCompleted  = "completed"  // finished every episode
	StatusStopped    = "stopped"    // a stream stopped on request before its last episode
	StatusFailed     = "failed"     // ended with an error
	StatusTerminated = "terminated" // terminated by an operator
	StatusCanceled   = "canceled"   // canceled
	StatusTimedOut   = "timed_out"  // hit its workflow timeout
)

// closed maps a closed workflow's Temporal status to clinevo's (a completed
// stream may still turn out StatusStopped: see StreamOf).
func closed(st enumspb.WorkflowExecutionStatus) string {
	switch st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return StatusCompleted
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return StatusFailed
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return StatusTerminated
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return StatusCanceled
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return StatusTimedOut
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return StatusRunning
	}
	return st.String()
}

// Round rounds a float for display and JSON output: four decimals, enough
// for every score clinevo reports (its own choice).
func Round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// RoundMeans rounds every mean of m (Round).
func RoundMeans(m contract.Means) contract.Means {
	m.S, m.Strict, m.U, m.T, m.E, m.Cost = Round(m.S), Round(m.Strict), Round(m.U), Round(m.T), Round(m.E), Round(m.Cost)
	return m
}

// notFound says whether err is Temporal's "no such workflow".
func notFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

// startInput decodes the input of the latest run of workflow id (its first
// history event) into v.
func startInput(ctx context.Context, c client.Client, id string, v any) error {
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return fmt.Errorf("history of %s is empty", id)
	}
	ev, err := it.Next()
	if err != nil {
		return fmt.Errorf("history of %s: %w", id, err)
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil {
		return fmt.Errorf("history of %s does not start with its start event", id)
	}
	return converter.GetDefaultDataConverter().FromPayloads(attrs.GetInput(), v)
}

// Condition is one condition of an experiment as `experiment status` shows it.
type Condition struct {
	Name       string             `json:"name"`
	Kind       contract.Kind      `json:"kind"`
	Benchmark  string             `json:"profile"`
	Run        string             `json:"run"`
	WorkflowID string             `json:"workflow_id"`
	Status     string             `json:"status"`
	Done       int                `json:"done"`            // episodes finished
	Total      int                `json:"total,omitempty"` // episodes planned (0: not known yet)
	Stage      int                `json:"stage,omitempty"` // a stream's current (or last) stage
	Stages     int                `json:"stages,omitempty"`
	Means      contract.Means     `json:"means"` // over the episodes done (a held-out condition's once it finished)
	Waiting    []contract.Waiting `json:"waiting,omitempty"`
}

// Experiment is what `clinevo experiment status` shows.
type Experiment struct {
	Name       string             `json:"name"`
	WorkflowID string             `json:"workflow_id"`
	Status     string             `json:"status"`
	Conditions []Condition        `json:"conditions"`
	Waiting    []contract.Waiting `json:"waiting,omitempty"`
	// Plan and Used are the experiment's plan and its use so far, per
	// condition and role (AddUse); PlanError says why there is no plan.
	Plan      *costplan.Plan `json:"plan,omitempty"`
	Used      *costplan.Plan `json:"used,omitempty"`
	PlanError string         `json:"plan_error,omitempty"`
	// Reason is why a terminated or failed experiment ended (CloseReason).
	Reason string `json:"reason,omitempty"`
	spec   contract.ExperimentSpec
}

// AddUse sets the experiment's plan beside its use so far
// (costplan.Compare: each condition planned from the records of the other
// runs, its use read from its own), from recs, the results store's records.
// A plan that cannot be made (a corpus this process cannot load) is
// PlanError, not a failure of the status. set are the build's benchmarks.
func (e *Experiment) AddUse(set bench.Set, recs []results.Record) {
	planned, used, err := costplan.Compare(set, e.spec, recs)
	if err != nil {
		e.PlanError = err.Error()
		return
	}
	e.Plan, e.Used = &planned, &used
}

// ExperimentOf reads an experiment's status and each condition's: its spec
// from the experiment's start event, then every condition's workflow (not
// started yet: StatusPending).
func ExperimentOf(ctx context.Context, c client.Client, name string) (Experiment, error) {
	id := contract.ExperimentWorkflowID(name)
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return Experiment{}, fmt.Errorf("experiment %s: %w", name, err)
	}
	out := Experiment{Name: name, WorkflowID: id, Status: closed(desc.GetWorkflowExecutionInfo().GetStatus())}
	if out.Status == StatusTerminated || out.Status == StatusFailed {
		out.Reason = CloseReason(ctx, c, id)
	}
	var spec contract.ExperimentSpec
	if err := startInput(ctx, c, id, &spec); err != nil {
		return Experiment{}, fmt.Errorf("experiment %s: %w", name, err)
	}
	out.spec = spec
	for i, cd := range spec.Conditions {
		cond, err := conditionOf(ctx, c, spec.RunID(cd.Name), cd)
		if err != nil {
			return Experiment{}, fmt.Errorf("experiment %s: condition %s: %w", name, cd.Name, err)
		}
		if s, err := spec.SettingsOf(i); err == nil { // an error: a spec that never validated; its profile stays unknown
			cond.Benchmark = s.Benchmark
		}
		out.Conditions = append(out.Conditions, cond)
	}
	if out.Status == StatusRunning {
		if out.Waiting, err = Waiting(ctx, c, id); err != nil {
			return Experiment{}, fmt.Errorf("experiment %s: %w", name, err)
		}
		if len(out.Waiting) > 0 {
			out.Status = StatusWaiting
		}
	}
	return out, nil
}

func conditionOf(ctx context.Context, c client.Client, run string, cd contract.ConditionSpec) (Condition, error) {
	out := Condition{Name: cd.Name, Kind: cd.Kind, Run: run}
	if cd.Kind == contract.KindStream {
		out.WorkflowID = contract.StreamWorkflowID(run)
		st, err := StreamOf(ctx, c, run)
		if notFound(err) {
			out.Status = StatusPending
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out.Status, out.Waiting = st.Status, st.Waiting
		if p := st.Progress; p != nil {
			out.Done, out.Total, out.Stage, out.Stages, out.Means = p.Cursor, p.Total, p.Stage, p.Stages, p.Overall
		}
		return out, nil
	}
	out.WorkflowID = contract.EvaluationWorkflowID(run)
	ev, err := EvaluationOf(ctx, c, run)
	if notFound(err) {
		out.Status = StatusPending
		return out, nil
	}
	if err != nil {
		return out, err
	}
	out.Status, out.Done, out.Total, out.Means, out.Waiting = ev.Status, ev.Done, ev.Total, ev.Means, ev.Waiting
	return out, nil
}

// Evaluation is a held-out evaluation's status.
type Evaluation struct {
	Status  string             `json:"status"`
	Done    int                `json:"done"`
	Total   int                `json:"total"`
	Means   contract.Means     `json:"means"`
	Waiting []contract.Waiting `json:"waiting,omitempty"`
}

// EvaluationOf reads a held-out evaluation's status: the episodes it plays
// (its start event: every case, once per epoch), how many episodes finished (visibility), and its means
// once it finished. A run Temporal does not know is a NotFound error.
func EvaluationOf(ctx context.Context, c client.Client, run string) (Evaluation, error) {
	id := contract.EvaluationWorkflowID(run)
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return Evaluation{}, err
	}
	out := Evaluation{Status: closed(desc.GetWorkflowExecutionInfo().GetStatus())}
	var spec contract.EvalSpec
	if err := startInput(ctx, c, id, &spec); err != nil {
		return Evaluation{}, err
	}
	out.Total = spec.Plays()
	if out.Status == StatusCompleted {
		var r contract.EvalResult
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, &r); err != nil {
			return Evaluation{}, fmt.Errorf("result of %s: %w", id, err)
		}
		out.Done, out.Means = r.Means.N, RoundMeans(r.Means)
		return out, nil
	}
	n, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
		Query: fmt.Sprintf(`ClinevoRun = %q AND Kind = %q AND WorkflowType = "EpisodeWorkflow" AND ExecutionStatus = "Completed"`, run, string(spec.Kind))})
	if err != nil {
		return Evaluation{}, fmt.Errorf("count the episodes of %s: %w", run, err)
	}
	out.Done = int(n.GetCount())
	if out.Status == StatusRunning {
		if out.Waiting, err = Waiting(ctx, c, id); err != nil {
			return Evaluation{}, err
		}
		if len(out.Waiting) > 0 {
			out.Status = StatusWaiting
		}
	}
	return out, nil
}
