package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/timing"
)

// history reads a workflow run's full history.
func history(ctx context.Context, c client.Client, workflowID, runID string) (*historypb.History, error) {
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

func (a *app) historyCmd() *cobra.Command {
	var out, runID string
	cmd := &cobra.Command{
		Use:   "history WORKFLOW_ID",
		Short: "Export a workflow history as JSON (the format `temporal workflow show --output json` and replayers read)",
		Args:  cobra.ExactArgs(1),
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			h, err := history(cmd.Context(), c, args[0], runID)
			if err != nil {
				return err
			}
			b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(h)
			if err != nil {
				return err
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			return os.WriteFile(out, b, 0o644)
		}),
	}
	cmd.Flags().StringVar(&out, "out", "", "output file (default stdout)")
	cmd.Flags().StringVar(&runID, "run-id", "", "a Temporal run ID (default: the latest run)")
	return cmd
}

// streamSizeCmd measures the histories of a stream: every run of the stream
// workflow (one per stage after continue-as-new) and its largest episode.
func (a *app) streamSizeCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "size RUN",
		Short: "Count the history events of every run of a stream workflow and of its largest episode",
		Args:  runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			ctx := cmd.Context()
			var token []byte
			type row struct {
				id, runID string
				events    int
			}
			var streams, episodes []row
			for {
				resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
					Query: fmt.Sprintf(`ClinevoRun = %q`, args[0]), PageSize: 1000, NextPageToken: token})
				if err != nil {
					return err
				}
				for _, e := range resp.Executions {
					r := row{id: e.Execution.WorkflowId, runID: e.Execution.RunId, events: int(e.HistoryLength)}
					if e.Execution.WorkflowId == contract.StreamWorkflowID(args[0]) {
						streams = append(streams, r)
					} else {
						episodes = append(episodes, r)
					}
				}
				if token = resp.NextPageToken; len(token) == 0 {
					break
				}
			}
			maxOf := func(rs []row) row {
				var m row
				for _, r := range rs {
					if r.events > m.events {
						m = r
					}
				}
				return m
			}
			ms, me := maxOf(streams), maxOf(episodes)
			if asJSON {
				return printJSON(cmd, map[string]any{"stream_runs": len(streams), "largest_stream_run_events": ms.events,
					"largest_stream_run": ms.runID, "episodes": len(episodes), "largest_episode_events": me.events, "largest_episode": me.id})
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "HISTORIES\tCOUNT\tLARGEST\tEVENTS")
			fmt.Fprintf(tw, "stream runs\t%d\t%s\t%d\n", len(streams), ms.runID, ms.events)
			fmt.Fprintf(tw, "episodes\t%d\t%s\t%d\n", len(episodes), me.id, me.events)
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return cmd
}

// streamTimingCmd prints where a stream's time went, from the histories of its
// runs and episodes.
func (a *app) streamTimingCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "timing RUN",
		Short: "Show workflow-task and activity dispatch latencies and run times from a stream's histories",
		Args:  runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			runs, err := timing.Collect(cmd.Context(), timing.FromClient(c), contract.StreamWorkflowID(args[0]))
			if err != nil {
				return fmt.Errorf("stream %s: %w", args[0], err)
			}
			r := timing.Analyse(runs)
			if asJSON {
				return printJSON(cmd, r)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "stream %s: %.1f s;", args[0], r.WallSeconds)
			for _, t := range slices.Sorted(maps.Keys(r.Runs)) {
				fmt.Fprintf(w, " %s: %d runs, %d workflow tasks;", t, r.Runs[t], r.WorkflowTasks[t])
			}
			fmt.Fprintln(w)
			tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "\t   count\t  p50 ms\t  p90 ms\t  max ms")
			for _, row := range r.Rows() {
				d := row.Dist
				fmt.Fprintf(tw, "%s\t%8d\t%8.1f\t%8.1f\t%8.1f\n", row.Name, d.Count, d.P50, d.P90, d.Max)
			}
			if r.UnreadMarkers > 0 {
				fmt.Fprintf(tw, "local-activity markers not decoded\t%8d\t\t\t\n", r.UnreadMarkers)
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
