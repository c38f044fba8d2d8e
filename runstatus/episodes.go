package runstatus

import (
	"context"
	"fmt"
	"sort"

	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// Episode is one row of `episode list`.
type Episode struct {
	WorkflowID string   `json:"workflow_id"` // the episode ID `episode show` takes
	Kind       string   `json:"kind"`
	Pass       int      `json:"pass"`
	Stage      int      `json:"stage"`
	Index      int      `json:"index"`
	CaseID     string   `json:"case_id"`
	Condition  string   `json:"condition"`
	S          *float64 `json:"s"` // null until the episode is scored
	Status     string   `json:"status"`
}

// Episodes lists the episode workflows of run that match the visibility
// query where (Filter.Query; empty: all), in pass, stage and index order.
func Episodes(ctx context.Context, c client.Client, run, where string) ([]Episode, error) {
	q := fmt.Sprintf(`ClinevoRun = %q AND WorkflowType = "EpisodeWorkflow"`, run)
	if where != "" {
		q += " AND " + where
	}
	var out []Episode
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, PageSize: 1000, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list the episodes of %s (%s): %w", run, q, err)
		}
		for _, e := range resp.GetExecutions() {
			out = append(out, episodeOf(e))
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return before(out[i], out[j]) })
	return out, nil
}

// episodeOf reads an episode workflow's search attributes.
func episodeOf(e *workflowpb.WorkflowExecutionInfo) Episode {
	ep := Episode{WorkflowID: e.GetExecution().GetWorkflowId(), Status: closed(e.GetStatus())}
	f := e.GetSearchAttributes().GetIndexedFields()
	decode(f["Kind"], &ep.Kind)
	decode(f["CaseId"], &ep.CaseID)
	decode(f["Condition"], &ep.Condition)
	var n int64
	if decode(f["Stage"], &n) {
		ep.Stage = int(n)
	}
	if decode(f["Pass"], &n) {
		ep.Pass = int(n)
	}
	if decode(f["EpisodeIndex"], &n) {
		ep.Index = int(n)
	}
	var s float64
	if decode(f["Score"], &s) {
		s = Round(s)
		ep.S = &s
	}
	return ep
}

// before orders episodes by pass, stage, index, then workflow ID.
func before(a, b Episode) bool {
	if a.Pass != b.Pass {
		return a.Pass < b.Pass
	}
	if a.Stage != b.Stage {
		return a.Stage < b.Stage
	}
	if a.Index != b.Index {
		return a.Index < b.Index
	}
	return a.WorkflowID < b.WorkflowID
}

// decode reads a search attribute's payload into v; false when it is absent
// or does not decode (an episode not scored yet has no Score).
func decode(p *commonpb.Payload, v any) bool {
	return p != nil && converter.GetDefaultDataConverter().FromPayload(p, v) == nil
}
