package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/runstatus"
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
			id, err := resolveEpisode(cmd.Context(), eng.Results, args[0])
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
			out := cmd.OutOrStdout()
			fmt.Fprint(out, runner.Format(t, b))
			fmt.Fprintf(out, "labels: %s\n", strings.Join(rec.Labels, " "))
			fmt.Fprintf(out, "cards: %d retrieved, %d written, %d evicted; rule edits: %s\n", len(rec.Retrieved), len(rec.Written), len(rec.Evicted), strings.Join(rec.RuleEdits, "; "))
			fmt.Fprintf(out, "history: temporal workflow show --workflow-id %q\n", rec.WorkflowID)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record and trace as JSON")
	return cmd
}

// positionOnly is an episode ID without its case suffix: the run, then
// /p<pass>/s<stage>/e<index>.
var positionOnly = regexp.MustCompile(`^(.+)/p\d+/s\d+/e\d+$`)

// resolveEpisode is the recorded episode ID that id names: id itself, or id
// without its case suffix, the one episode at that position of its run.
func resolveEpisode(ctx context.Context, store results.Episodes, id string) (string, error) {
	m := positionOnly.FindStringSubmatch(id)
	if m == nil {
		return id, nil
	}
	recs, err := store.Records(ctx, m[1])
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		if strings.HasPrefix(r.EpisodeID, id+"-") {
			return r.EpisodeID, nil
		}
	}
	return id, nil // not recorded: RecordTrace says so
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

func (a *app) memoryCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "memory", Short: "Query, inspect, export and import the memory bank (local or Qdrant)"}
	backendFlag(cmd.PersistentFlags())
	var f memory.Filter
	var runs []string
	var kinds []string
	var top int
	var queryJSON bool
	query := &cobra.Command{
		Use:   "query TEXT",
		Short: "Cards most similar to TEXT, optionally as of an episode number",
		Example: `  clinevo memory query "chest pain on exertion"
  clinevo memory query "chest pain on exertion" --run quick-E1 --as-of 50 --top 5
  clinevo memory query "cough" --kind correction --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return err
			}
			return checkQuery(cmd, args[0], f, kinds, top)
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			f.Runs = runs
			for _, k := range kinds {
				f.Kinds = append(f.Kinds, clinic.CardKind(k))
			}
			k := top
			if !cmd.Flags().Changed("top") {
				k = a.cfg.Settings.Memory.K // the configured doctor's K
			}
			var hits []memory.Hit
			// As of episode 0 the bank is empty (memory.Filter's 0 is now).
			if !cmd.Flags().Changed("as-of") || f.AsOf > 0 {
				var err error
				if hits, err = eng.Memory.Search(cmd.Context(), memory.Query{Text: args[0], K: k, Filter: f}); err != nil {
					return err
				}
			}
			if queryJSON {
				if hits == nil {
					hits = []memory.Hit{}
				}
				return printJSON(cmd, hits)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "SCORE\tID\tKIND\tRUN\tEPISODE\tEVICTED\tTEXT")
			for _, h := range hits {
				fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\t%d\t%d\t%s\n", h.Score, h.Card.ID, h.Card.Kind, h.Card.Run, h.Card.CreatedEpisode, h.Card.EvictedEpisode, clip(h.Card.Text, 100))
			}
			return tw.Flush()
		}),
	}
	query.Flags().IntVar(&f.AsOf, "as-of", 0, asOfHelp)
	query.Flags().BoolVar(&queryJSON, "json", false, "print the cards and their scores as JSON")
	query.Flags().StringSliceVar(&runs, "run", nil, "only cards written by these runs")
	query.Flags().StringSliceVar(&kinds, "kind", nil, "only these kinds: "+strings.Join(settings.CardKinds, ", "))
	query.Flags().StringVar(&f.Bank, "bank", "", "only this bank: success, correction, rules, advice")
	query.Flags().IntVar(&top, "top", 0, "number of cards (default: the configured doctor's K, memory.k)")
	cmd.AddCommand(query)
	var statRuns []string
	var statJSON bool
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Counts by kind, bank and stage; the most retrieved cards; evictions",
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			st, err := eng.Memory.Stats(cmd.Context(), memory.Filter{Runs: statRuns})
			if err != nil {
				return err
			}
			if statJSON {
				return printJSON(cmd, st)
			}
			return writeMemoryStats(cmd.OutOrStdout(), st)
		}),
	}
	stats.Flags().StringSliceVar(&statRuns, "run", nil, "only cards written by these runs")
	stats.Flags().BoolVar(&statJSON, "json", false, "print the counts as JSON")
	cmd.AddCommand(stats)
	a.memoryBankCmds(cmd)
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

// writeMemoryStats prints a bank's counts as tables: totals, live cards by
// kind, bank and stage, and the most retrieved cards.
func writeMemoryStats(w io.Writer, st memory.Stats) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CARDS\tLIVE\tEVICTED\tEMBEDDER\tDIM")
	fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%d\n", st.Total, st.Live, st.Evicted, st.Model, st.Dim)
	kinds := make([]string, 0, len(st.ByKind))
	for k := range st.ByKind {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	fmt.Fprintln(tw, "\nKIND\tLIVE")
	for _, k := range kinds {
		fmt.Fprintf(tw, "%s\t%d\n", k, st.ByKind[clinic.CardKind(k)])
	}
	banks := make([]string, 0, len(st.ByBank))
	for b := range st.ByBank {
		banks = append(banks, b)
	}
	sort.Strings(banks)
	fmt.Fprintln(tw, "\nBANK\tLIVE")
	for _, b := range banks {
		fmt.Fprintf(tw, "%s\t%d\n", b, st.ByBank[b])
	}
	stages := make([]int, 0, len(st.ByStage))
	for s := range st.ByStage {
		stages = append(stages, s)
	}
	sort.Ints(stages)
	fmt.Fprintln(tw, "\nSTAGE\tLIVE")
	for _, s := range stages {
		fmt.Fprintf(tw, "%d\t%d\n", s, st.ByStage[s])
	}
	fmt.Fprintln(tw, "\nMOST RETRIEVED\tID\tKIND\tRUN\tEPISODE\tTEXT")
	for _, c := range st.MostRetrieved {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", c.Retrievals, c.ID, c.Kind, c.Run, c.CreatedEpisode, clip(c.Text, 80))
	}
	return tw.Flush()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// runRow is one row of `runs list`.
type runRow struct {
	results.Run
	Episodes   int                      `json:"episodes"`
	S          *float64                 `json:"s"` // mean S over the run's episodes; null without episodes
	StageMeans []analysis.StageMean     `json:"stage_means"`
	Usage      results.Usage            `json:"usage"`
	ByRole     map[string]results.Usage `json:"usage_by_role"`
}

// runRows lists every run: the runs the store describes, then those only
// episode records name (held-out evaluations of older builds), with their
// stage means and model usage.
func runRows(ctx context.Context, store results.Store) ([]runRow, error) {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := store.Records(ctx, "")
	if err != nil {
		return nil, err
	}
	byRun := map[string][]results.Record{}
	var order []string
	for _, r := range recs {
		if _, ok := byRun[r.Run]; !ok {
			order = append(order, r.Run)
		}
		byRun[r.Run] = append(byRun[r.Run], r)
	}
	known := map[string]bool{}
	for _, r := range runs {
		known[r.Run] = true
	}
	for _, run := range order {
		if !known[run] {
			runs = append(runs, results.Run{Run: run, Kind: byRun[run][0].Kind})
		}
	}
	out := make([]runRow, 0, len(runs))
	for _, r := range runs {
		row := runRow{Run: r, Episodes: len(byRun[r.Run]), StageMeans: analysis.StageMeans(byRun[r.Run])}
		if n := len(byRun[r.Run]); n > 0 {
			var sum float64
			for _, rec := range byRun[r.Run] {
				sum += rec.Scores.S
			}
			s := runstatus.Round(sum / float64(n))
			row.S = &s
		}
		sort.Slice(row.StageMeans, func(i, j int) bool { return row.StageMeans[i].Stage < row.StageMeans[j].Stage })
		if row.ByRole, err = store.RunUsage(ctx, r.Run); err != nil {
			return nil, err
		}
		for _, u := range row.ByRole {
			t := &row.Usage
			t.Calls, t.PromptTokens, t.CompletionTokens = t.Calls+u.Calls, t.PromptTokens+u.PromptTokens, t.CompletionTokens+u.CompletionTokens
			t.CacheHits, t.CostUSD, t.ExtraFields = t.CacheHits+u.CacheHits, t.CostUSD+u.CostUSD, t.ExtraFields+u.ExtraFields
			t.CachedTokens, t.RateLimited, t.WaitedMS = t.CachedTokens+u.CachedTokens, t.RateLimited+u.RateLimited, t.WaitedMS+u.WaitedMS
		}
		out = append(out, row)
	}
	return out, nil
}

func (a *app) runsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "runs", Short: "List and export recorded runs"}
	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "Every run (streams, evaluations, experiments) with its episodes, mean S, S by stage and model usage",
		Example: `  clinevo runs list
  clinevo runs list --json | jq '.[] | {run, s}'`,
		Args: cobra.NoArgs,
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			rows, err := runRows(cmd.Context(), eng.Results)
			if err != nil {
				return err
			}
			if listJSON {
				return printJSON(cmd, rows)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tKIND\tEPISODES\tS\tS BY STAGE\tMODEL CALLS\tTOKENS IN\tCACHED IN\tTOKENS OUT\tCACHE HITS\tEXTRA FIELDS\tMODEL COST USD\tWORKFLOW")
			for _, r := range rows {
				s, stages := "-", make([]string, 0, len(r.StageMeans))
				if r.S != nil {
					s = fmt.Sprintf("%.3f", *r.S)
				}
				for _, m := range r.StageMeans {
					stages = append(stages, fmt.Sprintf("%.3f", m.S))
				}
				t := r.Usage
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t%s\n", r.Run.Run, r.Kind, r.Episodes, s, orDefault(strings.Join(stages, " "), "-"),
					t.Calls, t.PromptTokens, t.CachedTokens, t.CompletionTokens, t.CacheHits, t.ExtraFields, t.CostUSD, orDefault(r.WorkflowID, "-"))
				for _, role := range slices.Sorted(maps.Keys(r.ByRole)) {
					u := r.ByRole[role]
					fmt.Fprintf(tw, "  %s\t\t\t\t\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t\n", role, u.Calls, u.PromptTokens, u.CachedTokens, u.CompletionTokens, u.CacheHits, u.ExtraFields, u.CostUSD)
				}
			}
			return tw.Flush()
		}),
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print the runs as JSON")
	cmd.AddCommand(list)
	var stagesRun []string
	var stagesJSON bool
	stages := &cobra.Command{
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
			labels := map[string]string{}
			var keep []results.Record
			for _, r := range recs {
				if len(stagesRun) == 0 || slices.Contains(stagesRun, r.Run) {
					keep = append(keep, r)
					labels[r.Run] = r.Run
				}
			}
			means := analysis.StageMeans(keep)
			if stagesJSON {
				if means == nil {
					means = []analysis.StageMean{}
				}
				return printJSON(cmd, means)
			}
			writeStageTable(cmd.OutOrStdout(), means, labels)
			return nil
		}),
	}
	stages.Flags().StringSliceVar(&stagesRun, "run", nil, "only these runs")
	stages.Flags().BoolVar(&stagesJSON, "json", false, "print the stage means as JSON")
	_ = stages.RegisterFlagCompletionFunc("run", a.completeRuns)
	cmd.AddCommand(stages)
	var format, out, run string
	var exportJSON bool
	export := &cobra.Command{
		Use:   "export",
		Short: "Export episode records (with traces) as JSONL, or one JSON array with --json",
		Example: `  clinevo runs export --run quick-E1 --out e1.jsonl
  clinevo runs export --run quick-E1 --json | jq '.[0].record.scores'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if exportJSON {
				format = "json"
			}
			if format != "jsonl" && format != "json" {
				return badInput(fmt.Errorf("runs export: --format %q, want jsonl or json", format))
			}
			eng, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			recs, err := eng.Results.Records(cmd.Context(), run)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error {
				enc := json.NewEncoder(w)
				var all []map[string]any
				for _, r := range recs {
					_, t, err := eng.Results.RecordTrace(cmd.Context(), r.EpisodeID)
					if err != nil {
						return err
					}
					item := map[string]any{"record": r, "trace": t}
					if format == "json" {
						all = append(all, item)
						continue
					}
					if err := enc.Encode(item); err != nil {
						return err
					}
				}
				if format == "json" {
					if all == nil {
						all = []map[string]any{}
					}
					enc.SetIndent("", "  ")
					return enc.Encode(all)
				}
				return nil
			}
			if out == "" {
				return write(cmd.OutOrStdout())
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			if err := write(f); err != nil {
				f.Close()
				os.Remove(out)
				return err
			}
			return f.Close()
		},
	}
	export.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl (one record a line) or json (one array)")
	export.Flags().BoolVar(&exportJSON, "json", false, "the same as --format json")
	export.Flags().StringVar(&out, "out", "", "output file (default stdout)")
	export.Flags().StringVar(&run, "run", "", "only this run")
	_ = export.RegisterFlagCompletionFunc("run", a.completeRuns)
	cmd.AddCommand(export)
	return cmd
}

// writeStageTable prints stage means of runs side by side.
func writeStageTable(w io.Writer, means []analysis.StageMean, labels map[string]string) {
	sort.SliceStable(means, func(i, j int) bool {
		if means[i].Stage != means[j].Stage {
			return means[i].Stage < means[j].Stage
		}
		return labels[means[i].Run] < labels[means[j].Run]
	})
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\trun\tn\tS\tstrict acc\tU\tturns\ttests\tcost USD\t")
	for _, m := range means {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.3f\t%.2f\t%.3f\t%.1f\t%.2f\t%.0f\t\n", m.Stage, labels[m.Run], m.N, m.S, m.Strict, m.U, m.T, m.E, m.Cost)
	}
	tw.Flush()
}
