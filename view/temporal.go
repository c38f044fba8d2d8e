package view

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/runstatus"
)

// Workflows is what the pages ask Temporal. It is an interface so that the
// pages can be tested on recorded data with a Temporal that says what a test
// needs, and served against a real one through Temporal.
type Workflows interface {
	// State returns a workflow's status and, for a running stream, its
	// progress. A workflow Temporal does not know has status "unknown".
	State(ctx context.Context, workflowID string) (WorkflowState, error)
}

// WorkflowState is a workflow's status as the pages show it: running, paused
// (a running stream that was paused), waiting (a running workflow, or one of
// its episodes or evaluations, waits out a failing dependency), completed,
// failed, terminated, canceled, timedout or unknown.
type WorkflowState struct {
	Status   string
	Progress *contract.Progress // running streams only
	Waiting  []contract.Waiting // what the workflow and its children wait for
	// Reason is why a terminated or failed workflow ended, or why a stuck
	// one plays nothing (runstatus.CloseReason, runstatus.TaskFailure).
	Reason string
}

// temporalTimeout bounds each question to Temporal, so a page loads (saying
// that Temporal did not answer) when the frontend is down.
const temporalTimeout = 2 * time.Second

// Temporal reads workflow state through a Temporal client.
func Temporal(c client.Client) Workflows { return temporalWorkflows{c} }

type temporalWorkflows struct{ c client.Client }

func (t temporalWorkflows) State(ctx context.Context, id string) (WorkflowState, error) {
	ctx, cancel := context.WithTimeout(ctx, temporalTimeout)
	defer cancel()
	desc, err := t.c.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return WorkflowState{Status: "unknown"}, nil
	}
	if err != nil {
		return WorkflowState{}, err
	}
	info := desc.GetWorkflowExecutionInfo()
	st := WorkflowState{Status: strings.ToLower(info.GetStatus().String())}
	if st.Status != "running" {
		st.Reason = runstatus.CloseReason(ctx, t.c, id)
		return st, nil
	}
	if st.Reason = runstatus.TaskFailure(ctx, t.c, id, desc); st.Reason != "" {
		st.Status = runstatus.StatusStuck
		return st, nil
	}
	if st.Waiting, err = runstatus.Waiting(ctx, t.c, id); err != nil {
		return st, err
	}
	if len(st.Waiting) > 0 {
		st.Status = "waiting"
	}
	if info.GetType().GetName() != "StreamWorkflow" {
		return st, nil
	}
	v, err := t.c.QueryWorkflow(ctx, id, "", contract.QueryProgress)
	if err != nil {
		// A stream between workflow tasks (continuing as new) may not answer
		// a query for a moment: the status stands without its progress.
		return st, nil
	}
	var p contract.Progress
	if err := v.Get(&p); err != nil {
		return st, err
	}
	st.Progress = &p
	if p.Paused && st.Status == "running" {
		st.Status = "paused"
	}
	return st, nil
}
