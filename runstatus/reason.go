package runstatus

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// StatusStuck is a running workflow whose workflow task fails again and
// again (Temporal retries it for ever): it plays nothing, answers no query
// and takes no signal until it is terminated (`clinevo stream terminate`).
const StatusStuck = "stuck"

// stuckAfter is how many failed attempts in a row of a workflow task make a
// workflow stuck: one failure is retried at once and may pass (a worker that
// lost its cache), a third in a row is no accident (clinevo's own choice).
const stuckAfter = 3

// CloseReason is why a closed workflow ended, as its close event says: a
// terminated workflow's reason, a failed one's failure; "" for any other,
// or when the history cannot be read (the status stands without it). A
// child the server terminated with its parent (an experiment's condition,
// a stream's episode) gives the parent's reason, which the operator wrote.
func CloseReason(ctx context.Context, c client.Client, id string) string {
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return ""
		}
		if a := ev.GetWorkflowExecutionTerminatedEventAttributes(); a != nil && a.GetReason() == parentClosed {
			return parentReason(ctx, c, id)
		} else if a != nil {
			return a.GetReason()
		}
		if a := ev.GetWorkflowExecutionFailedEventAttributes(); a != nil {
			return a.GetFailure().GetMessage()
		}
	}
	return ""
}

// parentClosed is the reason the Temporal server gives a child it
// terminates because its parent closed (the parent close policy).
const parentClosed = "by parent close policy"

// parentReason is the reason of the parent that took workflow id with it;
// Temporal's own words when the parent is not known.
func parentReason(ctx context.Context, c client.Client, id string) string {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	p := d.GetWorkflowExecutionInfo().GetParentExecution()
	if err != nil || p.GetWorkflowId() == "" {
		return parentClosed
	}
	return fmt.Sprintf("%s (with its parent, workflow %s)", CloseReason(ctx, c, p.GetWorkflowId()), p.GetWorkflowId())
}

// TaskFailure says why a running workflow is stuck: how often its workflow
// task failed in a row and the last failure its history recorded; "" while
// its task fails fewer than stuckAfter times.
func TaskFailure(ctx context.Context, c client.Client, id string, desc *workflowservice.DescribeWorkflowExecutionResponse) string {
	n := desc.GetPendingWorkflowTask().GetAttempt()
	if n < stuckAfter {
		return ""
	}
	why := "no failure recorded"
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			break
		}
		if a := ev.GetWorkflowTaskFailedEventAttributes(); a != nil {
			why = fmt.Sprintf("%s: %s", a.GetCause(), a.GetFailure().GetMessage())
		}
	}
	return fmt.Sprintf("its workflow task failed %d times in a row (%s)", n, why)
}

// StartInput decodes the input a workflow's latest run started with (its
// first history event) into v: a stream's or an experiment's spec.
func StartInput(ctx context.Context, c client.Client, id string, v any) error {
	return startInput(ctx, c, id, v)
}
