package runstatus

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/clinevo/clinevo/contract"
)

// History reads a workflow run's full history (runID empty: the latest run).
func History(ctx context.Context, c client.Client, workflowID, runID string) (*historypb.History, error) {
	it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", workflowID, err)
		}
		h.Events = append(h.Events, ev)
	}
	return h, nil
}

// HistoryJSON is a workflow run's full history (History) as the indented
// JSON `temporal workflow show --output json` writes and replayers read.
func HistoryJSON(ctx context.Context, c client.Client, workflowID, runID string) ([]byte, error) {
	h, err := History(ctx, c, workflowID, runID)
	if err != nil {
		return nil, err
	}
	return protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(h)
}

// Size is what `stream size` shows: how many histories a stream made and
// the largest of its own runs (one per stage after continue-as-new) and of
// its episodes. The JSON keys are in the order the command has printed them.
type Size struct {
	Episodes               int    `json:"episodes"`
	LargestEpisode         string `json:"largest_episode"`
	LargestEpisodeEvents   int    `json:"largest_episode_events"`
	LargestStreamRun       string `json:"largest_stream_run"`
	LargestStreamRunEvents int    `json:"largest_stream_run_events"`
	StreamRuns             int    `json:"stream_runs"`
}

// SizeOf counts the history events of every workflow of run, from
// Temporal's visibility store.
func SizeOf(ctx context.Context, c client.Client, run string) (Size, error) {
	var s Size
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf(`ClinevoRun = %q`, run), PageSize: 1000, NextPageToken: token})
		if err != nil {
			return Size{}, err
		}
		for _, e := range resp.Executions {
			s.add(e.Execution.WorkflowId, e.Execution.RunId, int(e.HistoryLength), e.Execution.WorkflowId == contract.StreamWorkflowID(run))
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return s, nil
		}
	}
}

// add counts one history; the first of the largest is kept.
func (s *Size) add(id, runID string, events int, stream bool) {
	if stream {
		s.StreamRuns++
		if events > s.LargestStreamRunEvents {
			s.LargestStreamRun, s.LargestStreamRunEvents = runID, events
		}
		return
	}
	s.Episodes++
	if events > s.LargestEpisodeEvents {
		s.LargestEpisode, s.LargestEpisodeEvents = id, events
	}
}

// Write prints the counts as a table.
func (s Size) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "HISTORIES\tCOUNT\tLARGEST\tEVENTS")
	fmt.Fprintf(tw, "stream runs\t%d\t%s\t%d\n", s.StreamRuns, s.LargestStreamRun, s.LargestStreamRunEvents)
	fmt.Fprintf(tw, "episodes\t%d\t%s\t%d\n", s.Episodes, s.LargestEpisode, s.LargestEpisodeEvents)
	return tw.Flush()
}
