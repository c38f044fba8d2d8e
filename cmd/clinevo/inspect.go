package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/settings"
)

func (a *app) episodeShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show EPISODE_ID",
		Short: "Show a recorded episode (its ID is its workflow ID, <run>/p<pass>/s<stage>/e<index>-<case>)",
		Long: "Show a recorded episode: its trace, labels, cards and rule edits. EPISODE_ID is its workflow ID,\n" +
			"<run>/p<pass>/s<stage>/e<index>-<case>, or the same without -<case>.",
		Example: `  clinevo episode show quick-E1/p1/s01/e0001-stream-0007
  clinevo episode show quick-E1/p1/s01/e0001          # the case suffix may be left out
  clinevo episode show quick-E1/p1/s01/e0001 --json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeEpisodes,
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			e, err := recorded.EpisodeOf(cmd.Context(), eng.Results, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd, e)
			}
			b, err := eng.RunBenchmark(cmd.Context(), e.Record.Run)
			if err != nil {
				return err
			}
			recorded.WriteEpisode(cmd.OutOrStdout(), e.Record, e.Trace, b)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record and trace as JSON")
	return cmd
}

func (a *app) memoryQueryCmd() *cobra.Command {
	var q memory.Asked
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "query TEXT",
		Short: "Cards most similar to TEXT, optionally as of an episode number",
		Example: `  clinevo memory query "chest pain on exertion"
  clinevo memory query "chest pain on exertion" --run quick-E1 --as-of 50 --top 5
  clinevo memory query "cough" --kind correction --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return err
			}
			q.Text, q.TopGiven, q.AsOfGiven = args[0], cmd.Flags().Changed("top"), cmd.Flags().Changed("as-of")
			return q.Check()
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			hits, err := q.Search(cmd.Context(), eng.Memory, a.cfg.Settings.Memory.K) // without --top: the configured doctor's K
			if err != nil {
				return err
			}
			return output(cmd, asJSON, hits, func(w io.Writer) error { return memory.WriteHits(w, hits) })
		}),
	}
	cmd.Flags().IntVar(&q.Filter.AsOf, "as-of", 0, asOfHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the cards and their scores as JSON")
	cmd.Flags().StringSliceVar(&q.Filter.Runs, "run", nil, "only cards written by these runs")
	cmd.Flags().StringSliceVar(&q.KindNames, "kind", nil, "only these kinds: "+strings.Join(settings.CardKinds, ", "))
	cmd.Flags().StringVar(&q.Filter.Bank, "bank", "", "only this bank: success, correction, rules, advice")
	cmd.Flags().IntVar(&q.Top, "top", 0, "number of cards (default: the configured doctor's K, memory.k)")
	return cmd
}

// asOfHelp is the one meaning of "as of" on every memory command.
const asOfHelp = "the bank as of episode N: the cards live once episode N was learned from (0: the empty bank, before episode 1; without it: now)"

func (a *app) memoryStatsCmd() *cobra.Command {
	var runs []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Counts by kind, bank and stage; the most retrieved cards; evictions",
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			st, err := eng.Memory.Stats(cmd.Context(), memory.Filter{Runs: runs})
			if err != nil {
				return err
			}
			return output(cmd, asJSON, st, func(w io.Writer) error { return memory.WriteStats(w, st) })
		}),
	}
	cmd.Flags().StringSliceVar(&runs, "run", nil, "only cards written by these runs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return cmd
}

func (a *app) runsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "runs", Short: "List and export recorded runs"}
	cmd.AddCommand(a.runsListCmd(), a.runsStagesCmd(), a.runsExportCmd())
	return cmd
}

func (a *app) runsListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Every run (streams, evaluations, experiments) with its episodes, mean S, S by stage and model usage",
		Example: `  clinevo runs list
  clinevo runs list --json | jq '.[] | {run, s}'`,
		Args: cobra.NoArgs,
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			rows, err := recorded.Runs(cmd.Context(), eng.Results)
			if err != nil {
				return err
			}
			return output(cmd, asJSON, rows, func(w io.Writer) error { return recorded.WriteRuns(w, rows) })
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the runs as JSON")
	return cmd
}

func (a *app) runsStagesCmd() *cobra.Command {
	var runs []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stages",
		Short: "Stage means (S, strict accuracy, U, turns, tests, cost) of recorded runs",
		Example: `  clinevo runs stages
  clinevo runs stages --run quick-E0,quick-E1 --json`,
		Args: cobra.NoArgs,
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			recs, err := eng.Results.Records(cmd.Context(), "")
			if err != nil {
				return err
			}
			means, labels := recorded.Stages(recs, runs)
			return output(cmd, asJSON, means, func(w io.Writer) error { return analysis.WriteStageTable(w, means, labels) })
		}),
	}
	cmd.Flags().StringSliceVar(&runs, "run", nil, "only these runs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the stage means as JSON")
	_ = cmd.RegisterFlagCompletionFunc("run", a.completeRuns)
	return cmd
}

func (a *app) runsExportCmd() *cobra.Command {
	var format, out, run string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export episode records (with traces) as JSONL, or one JSON array with --json",
		Example: `  clinevo runs export --run quick-E1 --out e1.jsonl
  clinevo runs export --run quick-E1 --json | jq '.[0].record.scores'`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) (err error) {
			format, err = recorded.ExportFormat(format, asJSON)
			return badInput(err)
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			if out == "" {
				return recorded.Export(cmd.Context(), eng.Results, run, format, cmd.OutOrStdout())
			}
			return recorded.ExportFile(cmd.Context(), eng.Results, run, format, out)
		}),
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl (one record a line) or json (one array)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "the same as --format json")
	cmd.Flags().StringVar(&out, "out", "", "output file (default stdout)")
	cmd.Flags().StringVar(&run, "run", "", "only this run")
	_ = cmd.RegisterFlagCompletionFunc("run", a.completeRuns)
	return cmd
}
