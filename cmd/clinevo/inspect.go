package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/results"
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
			id, err := recorded.ResolveEpisode(cmd.Context(), eng.Results, args[0])
			if err != nil {
				return err
			}
			rec, t, err := eng.Results.RecordTrace(cmd.Context(), id)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd, map[string]any{"record": rec, "trace": t})
			}
			b, err := runBenchmark(cmd.Context(), eng, rec.Run)
			if err != nil {
				return err
			}
			recorded.WriteEpisode(cmd.OutOrStdout(), rec, t, b)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record and trace as JSON")
	return cmd
}

// runBenchmark is the benchmark a recorded run played; nil when the results
// store holds no spec naming the run or this build lacks the benchmark, and
// then its traces are shown by the shared reading.
func runBenchmark(ctx context.Context, eng *engine.Engine, run string) (bench.Benchmark, error) {
	src, err := results.SourceOfRun(ctx, eng.Results, run)
	if errors.Is(err, results.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := eng.Benchmarks.Of(src.Settings)
	if err != nil {
		return nil, nil // not an error: a benchmark this build does not have: the shared reading, as the viewer shows it
	}
	return b, nil
}

// queryFlags are the flags of `memory query`.
type queryFlags struct {
	filter      memory.Filter
	runs, kinds []string
	top         int
	json        bool
}

func (a *app) memoryQueryCmd() *cobra.Command {
	var f queryFlags
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
			return checkQuery(cmd, args[0], f.filter, f.kinds, f.top)
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			q := memory.Query{Text: args[0], K: f.top, Filter: f.filter}
			q.Filter.Runs = f.runs
			for _, k := range f.kinds {
				q.Filter.Kinds = append(q.Filter.Kinds, clinic.CardKind(k))
			}
			if !cmd.Flags().Changed("top") {
				q.K = a.cfg.Settings.Memory.K // the configured doctor's K
			}
			var hits []memory.Hit
			// As of episode 0 the bank is empty (memory.Filter's 0 is now).
			if !cmd.Flags().Changed("as-of") || q.Filter.AsOf > 0 {
				var err error
				if hits, err = eng.Memory.Search(cmd.Context(), q); err != nil {
					return err
				}
			}
			if hits == nil {
				hits = []memory.Hit{} // JSON: an empty list, not null
			}
			return output(cmd, f.json, hits, func(w io.Writer) error { return memory.WriteHits(w, hits) })
		}),
	}
	cmd.Flags().IntVar(&f.filter.AsOf, "as-of", 0, asOfHelp)
	cmd.Flags().BoolVar(&f.json, "json", false, "print the cards and their scores as JSON")
	cmd.Flags().StringSliceVar(&f.runs, "run", nil, "only cards written by these runs")
	cmd.Flags().StringSliceVar(&f.kinds, "kind", nil, "only these kinds: "+strings.Join(settings.CardKinds, ", "))
	cmd.Flags().StringVar(&f.filter.Bank, "bank", "", "only this bank: success, correction, rules, advice")
	cmd.Flags().IntVar(&f.top, "top", 0, "number of cards (default: the configured doctor's K, memory.k)")
	return cmd
}

// asOfHelp is the one meaning of "as of" on every memory command.
const asOfHelp = "the bank as of episode N: the cards live once episode N was learned from (0: the empty bank, before episode 1; without it: now)"

// checkQuery refuses a memory query that cannot mean anything: no text, a
// negative episode, an unknown kind or bank, fewer than one card.
func checkQuery(cmd *cobra.Command, text string, f memory.Filter, kinds []string, top int) error {
	banks := []string{}
	for _, k := range settings.CardKinds {
		if b := memory.BankOf(clinic.CardKind(k)); !slices.Contains(banks, b) {
			banks = append(banks, b)
		}
	}
	switch {
	case strings.TrimSpace(text) == "":
		return errors.New(`memory query: TEXT is empty: give the words to search for, e.g. memory query "chest pain on exertion"`)
	case f.AsOf < 0:
		return fmt.Errorf("memory query: --as-of %d: want an episode number, 0 or more (0: the empty bank; without --as-of: now)", f.AsOf)
	case cmd.Flags().Changed("top") && top < 1:
		return fmt.Errorf("memory query: --top %d: want at least 1 card (without --top: memory.k)", top)
	case f.Bank != "" && !slices.Contains(banks, f.Bank):
		return fmt.Errorf("memory query: --bank %q: want one of %s", f.Bank, strings.Join(banks, ", "))
	}
	for _, k := range kinds {
		if !slices.Contains(settings.CardKinds, k) {
			return fmt.Errorf("memory query: --kind %q: want one of %s", k, strings.Join(settings.CardKinds, ", "))
		}
	}
	return nil
}

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
		PreRunE: func(*cobra.Command, []string) error {
			if asJSON {
				format = "json"
			}
			if format != "jsonl" && format != "json" {
				return badInput(fmt.Errorf("runs export: --format %q, want jsonl or json", format))
			}
			return nil
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
