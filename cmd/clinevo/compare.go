package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/results"
)

func (a *app) compareCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare A B [C ...]",
		Short: "Compare recorded runs side by side: the settings that differ, then every metric, paired by case where they share cases",
		Long: "Compare run A with each other run (any run `clinevo runs list` shows: a stream, a held-out run, a stage\n" +
			"evaluation or a replay, from one experiment or several). For each pair it prints first the settings and\n" +
			"roles that differ, then a row per metric the benchmark declares: over the cases both runs played, the\n" +
			"mean difference B−A with a paired bootstrap 95% interval, the Wilcoxon signed-rank test and, on a 0/1\n" +
			"metric (pass, strict), the exact McNemar test; runs that share no case are compared unpaired (the\n" +
			"difference of means with an unpaired bootstrap interval, no test), and the output says so. Two streams\n" +
			"are also compared stage by stage.",
		Example: `  clinevo compare quick-E0 quick-E1
  clinevo compare quick-E1 quick-E2 other-E1 --json | jq '.pairs[] | {b, metrics: [.metrics[] | {metric, mean_diff}]}'
  clinevo compare quick-H0 quick-H3`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: a.completeRuns,
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			runs, err := analysis.LoadCompared(cmd.Context(), eng.Results, eng.Benchmarks, args)
			if errors.Is(err, results.ErrNotFound) {
				return badInput(err)
			}
			if err != nil {
				return err
			}
			c := analysis.CompareRuns(runs)
			return output(cmd, asJSON, c, func(w io.Writer) error { return analysis.WriteComparison(w, c) })
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}
