package runstatus

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// whereField is a name `episode list --where` takes and the search
// attribute (or Temporal field) it reads.
type whereField struct {
	attr    string
	numeric bool
}

// WhereFields are the names a where clause may compare: an episode's score
// S, its stage, pass, index in the run, case, condition and kind, and its
// Temporal status.
var WhereFields = map[string]whereField{
	"s": {"Score", true}, "stage": {"Stage", true}, "pass": {"Pass", true}, "index": {"EpisodeIndex", true},
	"case": {"CaseId", false}, "condition": {"Condition", false}, "kind": {"Kind", false}, "status": {"ExecutionStatus", false},
}

var comparison = regexp.MustCompile(`^\s*([A-Za-z_]+)\s*(<=|>=|!=|=|<|>)\s*(.+?)\s*$`)

// Where turns a where clause of comparisons joined by "and" or ","
// ("S<0.5", "stage>=3 and condition=angina", "status=Running") into a
// Temporal visibility query over the episodes' search attributes. A name it
// does not know, an operator it does not take or a number that does not
// parse is an error naming it.
func Where(clause string) (string, error) {
	var parts []string
	for _, term := range regexp.MustCompile(`(?i)\s+and\s+|,`).Split(clause, -1) {
		if strings.TrimSpace(term) == "" {
			continue
		}
		m := comparison.FindStringSubmatch(term)
		if m == nil {
			return "", fmt.Errorf("--where %q: %q is not NAME OP VALUE (OP one of < <= > >= = !=), e.g. S<0.5", clause, strings.TrimSpace(term))
		}
		name, op, value := strings.ToLower(m[1]), m[2], strings.Trim(m[3], `"'`)
		f, ok := WhereFields[name]
		if !ok {
			return "", fmt.Errorf("--where %q: unknown name %q: want one of S, stage, pass, index, case, condition, kind, status", clause, m[1])
		}
		if f.numeric {
			if _, err := strconv.ParseFloat(value, 64); err != nil {
				return "", fmt.Errorf("--where %q: %s takes a number, got %q", clause, m[1], value)
			}
			parts = append(parts, fmt.Sprintf("%s %s %s", f.attr, op, value))
			continue
		}
		if op != "=" && op != "!=" {
			return "", fmt.Errorf("--where %q: %s takes = or !=, got %s", clause, m[1], op)
		}
		if name == "status" { // Temporal's names: Running, Completed, Failed, ...
			value = strings.ToUpper(value[:1]) + value[1:]
		}
		parts = append(parts, fmt.Sprintf("%s %s %q", f.attr, op, value))
	}
	return strings.Join(parts, " AND "), nil
}

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
// query where (Where's output; empty: all), in pass, stage and index order.
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
