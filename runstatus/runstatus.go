// Package runstatus reads from Temporal what a run is doing: a stream's
// status, progress and rule book, and what any of its workflows waits for
// (a failing dependency that one of their activities keeps retrying). The
// command line and the viewer show the same through it.
package runstatus

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
)

// Waiting lists what a workflow and its running children, and theirs, wait
// for, parents first: each running workflow is asked QueryWaiting. A workflow
// Temporal does not know, or that is not running, waits for nothing. A
// workflow that does not answer the query (one started by an older clinevo,
// or busy in a long workflow task) is skipped: only failing to describe a
// workflow is an error.
func Waiting(ctx context.Context, c client.Client, workflowID string) ([]contract.Waiting, error) {
	desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", workflowID, err)
	}
	if desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return nil, nil
	}
	var out []contract.Waiting
	if v, err := c.QueryWorkflow(ctx, workflowID, "", contract.QueryWaiting); err == nil {
		var w *contract.Waiting
		if v.Get(&w) == nil && w != nil {
			w.WorkflowID = workflowID
			out = append(out, *w)
		}
	}
	for _, ch := range desc.GetPendingChildren() {
		more, err := Waiting(ctx, c, ch.GetWorkflowId())
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// Stream is what `clinevo stream status` shows.
type Stream struct {
	WorkflowID string `json:"workflow_id"`
	// Status is one of this package's statuses: StatusRunning, StatusPaused, StatusStopping,
	// StatusWaiting while it runs; StatusCompleted, StatusStopped, StatusFailed, StatusTerminated,
	// StatusCanceled or StatusTimedOut once closed.
	Status string `json:"status"`
	// TemporalStatus is Temporal's own (a stopped stream is Completed there).
	TemporalStatus string `json:"temporal_status"`
	// Benchmark is the benchmark the stream plays (its spec's).
	Benchmark string `json:"profile"`
	// Progress is the running stream's answer to the progress query, or a
	// closed stream's numbers from its result (Cursor episodes played).
	Progress   *contract.Progress `json:"progress,omitempty"`
	Rules      []string           `json:"rules,omitempty"`
	Waiting    []contract.Waiting `json:"waiting,omitempty"`
	QueryError string             `json:"query_error,omitempty"`
	// Endpoints are the model endpoints' limiter figures over the run, from
	// the results store (Endpoints); StreamOf, which reads Temporal only,
	// leaves them for the caller.
	Endpoints []Endpoint `json:"endpoints,omitempty"`
	// StageMeans are a closed stream's means per stage, from its records in
	// the results store (the caller's, as Endpoints).
	StageMeans []StageMeans `json:"stage_means,omitempty"`
	// StoreError says why the endpoint figures (or the stage means) could
	// not be read.
	StoreError string `json:"store_error,omitempty"`
	// Reason is why a terminated or failed stream ended (CloseReason), or
	// why a stuck one plays nothing (TaskFailure).
	Reason string `json:"reason,omitempty"`
}

// StreamOf reads a stream's status, its progress and rule book (queries, or
// once it completed its result), and what it and its episodes and
// evaluations wait for. A run Temporal does not know is a NotFound error.
func StreamOf(ctx context.Context, c client.Client, run string) (Stream, error) {
	id := contract.StreamWorkflowID(run)
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return Stream{}, fmt.Errorf("stream %s: %w", run, err)
	}
	st := desc.GetWorkflowExecutionInfo().GetStatus()
	out := Stream{WorkflowID: id, TemporalStatus: st.String(), Status: closed(st)}
	var spec contract.StreamSpec
	if err := startInput(ctx, c, id, &spec); err != nil {
		return Stream{}, fmt.Errorf("stream %s: %w", run, err)
	}
	out.Benchmark = spec.Settings.Benchmark
	switch st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		var res contract.StreamResult
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
			return Stream{}, fmt.Errorf("stream %s: result: %w", run, err)
		}
		out.finished(res)
		return out, nil
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		if out.Reason = TaskFailure(ctx, c, id, desc); out.Reason != "" {
			out.Status = StatusStuck // it answers no query
			return out, nil
		}
		out.query(ctx, c)
		if out.Waiting, err = Waiting(ctx, c, id); err != nil {
			return Stream{}, fmt.Errorf("stream %s: %w", run, err)
		}
		if len(out.Waiting) > 0 {
			out.Status = StatusWaiting
		}
	default:
		out.Reason = CloseReason(ctx, c, id)
	}
	return out, nil
}

// StageMeans are the means of one stage's episodes.
type StageMeans struct {
	Stage int `json:"stage"`
	contract.Means
}

// Closed says whether status is that of a closed workflow.
func Closed(status string) bool {
	switch status {
	case StatusCompleted, StatusStopped, StatusFailed, StatusTerminated, StatusCanceled, StatusTimedOut:
		return true
	}
	return false
}

// finished shows a completed stream's result: stopped or not, its episodes,
// stages, means and rule book. Its progress is the stream's own last answer
// to the progress query where the result has it.
func (out *Stream) finished(res contract.StreamResult) {
	if res.Stopped {
		out.Status = StatusStopped
	}
	if res.Progress != nil {
		p := *res.Progress
		p.Paused, p.Stopping, p.PausedBy = false, false, ""
		p.Overall, p.ThisStage = RoundMeans(p.Overall), RoundMeans(p.ThisStage)
		out.Progress = &p
	} else {
		out.Progress = rebuiltProgress(res)
	}
	out.Rules = make([]string, 0, len(res.RuleBook))
	for _, r := range res.RuleBook {
		out.Rules = append(out.Rules, r.Text)
	}
}

// rebuiltProgress is the progress of a stream whose result does not hold its
// last answer to the progress query: its stages counted from their ends, how
// many it would have played not known when it stopped.
func rebuiltProgress(res contract.StreamResult) *contract.Progress {
	p := &contract.Progress{Run: res.Run, Cursor: res.Episodes, Stage: len(res.StageEnds), Stages: len(res.StageEnds), Overall: RoundMeans(res.Overall)}
	if !res.Stopped {
		p.Total = res.Episodes
	} else if n := len(res.StageEnds); res.Episodes > 0 && (n == 0 || res.LastEpisode > res.StageEnds[n-1]) {
		// Stopped within a stage that never ended: the stage it stopped
		// in counts among the stages it played ("stage 0 of 0" said
		// nothing).
		p.Stage, p.Stages = n+1, n+1
	}
	return p
}

// ProgressStatus is the status of a running stream as its progress (the
// query's answer, or a steering update's) says: stopping, paused ("paused:
// budget" when its own rule paused it: the figures are in the progress),
// else running.
func ProgressStatus(p contract.Progress) string {
	switch {
	case p.Stopping:
		return StatusStopping
	case p.Paused && p.PausedBy != "":
		return StatusPaused + ": " + p.PausedBy
	case p.Paused:
		return StatusPaused
	}
	return StatusRunning
}

// query asks a running stream for its progress (paused or stopping shows in
// the status) and its rule book; a stream that does not answer yet says so
// in QueryError.
func (out *Stream) query(ctx context.Context, c client.Client) {
	v, err := c.QueryWorkflow(ctx, out.WorkflowID, "", contract.QueryProgress)
	if err != nil {
		// A stream between two runs (continuing as new) answers a moment
		// later; say so rather than fail.
		out.QueryError = err.Error()
		return
	}
	var p contract.Progress
	if err := v.Get(&p); err == nil {
		p.Overall, p.ThisStage = RoundMeans(p.Overall), RoundMeans(p.ThisStage)
		out.Progress = &p
		out.Status = ProgressStatus(p)
	}
	if v, err := c.QueryWorkflow(ctx, out.WorkflowID, "", contract.QueryRules); err == nil {
		var rules []string
		if v.Get(&rules) == nil {
			out.Rules = rules
		}
	}
}
