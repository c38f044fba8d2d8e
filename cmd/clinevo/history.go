package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/timing"
)

func (a *app) historyCmd() *cobra.Command {
	var out, runID string
	cmd := &cobra.Command{
		Use:   "history WORKFLOW_ID",
		Short: "Export a workflow history as JSON (the format `temporal workflow show --output json` and replayers read)",
		Args:  cobra.ExactArgs(1),
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			b, err := runstatus.HistoryJSON(cmd.Context(), c, args[0], runID)
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
			s, err := runstatus.SizeOf(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			return output(cmd, asJSON, s, s.Write)
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
			return output(cmd, asJSON, r, func(w io.Writer) error { return r.Write(w, args[0]) })
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
