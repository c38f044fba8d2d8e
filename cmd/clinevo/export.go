package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/atif"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/inspectlog"
)

func (a *app) exportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "export", Short: "Export recorded runs in other tools' formats"}
	var out, format string
	var f inspectlog.Format
	inspect := &cobra.Command{
		Use: "inspect RUN",
		Short: "Write a run as inspect_ai eval logs for inspect view (an experiment: one log a condition; one sample an episode, " +
			"with messages, events, scores and metadata)",
		Long: "Writes DIR/<created>_<run>_<id>.eval (or .json with --format json) in inspect_ai's log formats (inspect_ai at commit\n" +
			"499e6152e7b8, release 0.3.260 and 7 commits), named as inspect names its own logs so that `inspect view --log-dir DIR`\n" +
			"lists it. .eval, inspect's default, is a zip of JSON entries (a header, one entry a sample, the samples' summaries);\n" +
			".json is the whole log as one document. RUN is any run `clinevo runs list` shows: a stream, a held-out run,\n" +
			"a stage evaluation, a replay, or an experiment (one log a condition that has episodes).",
		Example: `  clinevo export inspect quick-E1 --out inspect-logs/
  clinevo export inspect quick --out inspect-logs/ --format json   # every condition of experiment quick
  inspect view --log-dir inspect-logs/`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(*cobra.Command, []string) (err error) {
			if f, err = inspectlog.ParseFormat(format); err != nil {
				return badInput(fmt.Errorf("export inspect: %w", err))
			}
			return nil
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			return inspectlog.Export(cmd.Context(), eng.Results, eng.Benchmarks, args[0], out, f, cmd.OutOrStdout())
		}),
	}
	inspect.Flags().StringVar(&out, "out", ".", "directory to write the logs into")
	inspect.Flags().StringVar(&format, "format", string(inspectlog.FormatEval), "log format: eval (inspect's default, a zip) or json")
	cmd.AddCommand(inspect, a.exportATIFCmd())
	return cmd
}

func (a *app) exportATIFCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "atif RUN",
		Short: "Write a run's episodes as ATIF trajectories (Harbor's format, RFC 0001): one file an episode",
		Long: "Writes DIR/<run>/<episode>.json, one ATIF v1.6 trajectory an episode (the doctor as the agent, each action a tool\n" +
			"call, each reply its observation, the doctor's model use as final metrics). RUN is any run `clinevo runs list`\n" +
			"shows; an experiment gives a folder a condition that has episodes.",
		Example: `  clinevo export atif quick-E1 --out trajectories/
  clinevo export atif quick --out trajectories/   # every condition of experiment quick`,
		Args: cobra.ExactArgs(1),
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			return atif.Export(cmd.Context(), eng.Results, eng.Benchmarks, args[0], out, cmd.OutOrStdout())
		}),
	}
	c.Flags().StringVar(&out, "out", ".", "directory to write the trajectories into (a folder a run)")
	return c
}
