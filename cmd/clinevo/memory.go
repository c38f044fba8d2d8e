package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
)

func (a *app) memoryBankCmds(cmd *cobra.Command) {
	var showJSON bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "One card with where it came from: run, episode, source case, the graded action",
		Args:  cobra.ExactArgs(1),
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			c, err := eng.Memory.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			recs, err := eng.Results.Records(cmd.Context(), c.Run)
			if err != nil {
				return err
			}
			from := results.SourceOf(recs, c)
			if showJSON {
				out := map[string]any{"card": c}
				if from != nil {
					out["episode"] = map[string]any{"workflow_id": from.WorkflowID, "case": from.CaseID, "stage": from.Stage, "s": from.Scores.S, "labels": from.Labels}
				}
				return printJSON(cmd, out)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			evicted := "live"
			if c.EvictedEpisode > 0 {
				evicted = fmt.Sprintf("evicted at episode %d", c.EvictedEpisode)
			}
			fmt.Fprintf(tw, "card\t%s\n", c.ID)
			fmt.Fprintf(tw, "kind\t%s (bank %s)\n", c.Kind, c.Bank)
			fmt.Fprintf(tw, "text\t%s\n", c.Text)
			fmt.Fprintf(tw, "written\trun %s, pass %d, stage %d, episode %d; %s\n", c.Run, c.Pass, c.Stage, c.CreatedEpisode, evicted)
			fmt.Fprintf(tw, "source case\t%s\n", c.SourceCase)
			if c.Grade != "" {
				fmt.Fprintf(tw, "graded action\t%s\n", c.Grade)
			}
			fmt.Fprintf(tw, "retrievals\t%d (last at episode %d)\n", c.Retrievals, c.LastRetrieved)
			if from != nil {
				fmt.Fprintf(tw, "episode\t%s (stage %d, S=%.3f)\n", from.WorkflowID, from.Stage, from.Scores.S)
				fmt.Fprintf(tw, "labels\t%s\n", strings.Join(from.Labels, " "))
			}
			return tw.Flush()
		}),
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print the card and its episode as JSON")
	cmd.AddCommand(show)
	var exportOut string
	var exportRuns []string
	export := &cobra.Command{
		Use:   "export",
		Short: "Write every card (evicted ones too) as JSONL, to seed another run or backend",
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			cards, err := eng.Memory.List(cmd.Context(), memory.Filter{Runs: exportRuns, IncludeEvicted: true})
			if err != nil {
				return err
			}
			write := func(w io.Writer) error { return memory.WriteCards(w, cards) }
			if exportOut == "" {
				return write(cmd.OutOrStdout())
			}
			if err := corpus.WriteAtomic(exportOut, write); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cards\n", exportOut, len(cards))
			return nil
		}),
	}
	export.Flags().StringVar(&exportOut, "out", "", "output file (default stdout)")
	export.Flags().StringSliceVar(&exportRuns, "run", nil, "only cards of these runs")
	cmd.AddCommand(export)
	var replace bool
	imp := &cobra.Command{
		Use:   "import FILE",
		Short: "Load a memory export into the configured backend (evictions are restored, retrieval counts start at zero); cards already in the bank are changed only with --replace",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return badInput(fmt.Errorf("memory import: %w", err))
			}
			defer f.Close()
			cards, err := memory.ReadCards(f, args[0])
			if err != nil {
				return badInput(err)
			}
			eng, err := a.openEngine(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			res, err := memory.Import(cmd.Context(), eng.Memory, cards, replace)
			if errors.Is(err, memory.ErrCardsExist) {
				return badInput(err)
			}
			if err != nil {
				return err
			}
			for _, c := range res.Replaced {
				fmt.Fprintf(cmd.OutOrStdout(), "replaced card %s (a %s card of run %s, episode %d)\n", c.ID, c.Kind, c.Run, c.CreatedEpisode)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d cards from %s: %d new, %d already in the bank unchanged, %d replaced\n",
				len(cards), args[0], res.Added, res.Unchanged, len(res.Replaced))
			return nil
		},
	}
	imp.Flags().BoolVar(&replace, "replace", false, "replace the cards of the bank that have the IDs of imported cards (each is named); without it such an import changes nothing")
	cmd.AddCommand(imp)
	var from, to int
	var diffRuns []string
	var diffJSON bool
	diff := &cobra.Command{
		Use:   "diff",
		Short: "Cards written and evicted between the bank as of episode N and as of episode M (--from N --to M)",
		Example: `  clinevo memory diff --to 25                   # what the first 25 episodes wrote
  clinevo memory diff --from 25 --to 50 --run quick-E1
  clinevo memory diff --from 75 --json            # from episode 75 to now`,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			// Checked before the stores open: bad input exits 2.
			check := memory.CheckDiff(from, from+1) // --from alone: 0 or more
			if cmd.Flags().Changed("to") {
				check = memory.CheckDiff(from, to)
			}
			if check != nil {
				return badInput(fmt.Errorf("memory diff: --from %d --to %d: %w", from, to, check))
			}
			for _, r := range diffRuns {
				if err := contract.ValidateConditionRunID(r); err != nil {
					return badInput(fmt.Errorf("memory diff: --run: %w", err))
				}
			}
			return nil
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			if !cmd.Flags().Changed("to") {
				// Now: the last episode any card of these runs names.
				cards, err := eng.Memory.List(cmd.Context(), memory.Filter{Runs: diffRuns, IncludeEvicted: true})
				if err != nil {
					return err
				}
				for _, c := range cards {
					to = max(to, c.CreatedEpisode, c.EvictedEpisode, from+1)
				}
				to = max(to, from+1)
			}
			d, err := memory.DiffOf(cmd.Context(), eng.Memory, memory.Filter{Runs: diffRuns}, from, to)
			if err != nil {
				return err
			}
			if diffJSON {
				return printJSON(cmd, map[string]any{"from": d.From, "to": d.To, "written": d.Written, "evicted": d.Evicted})
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "CHANGE\tID\tKIND\tEPISODE\tTEXT")
			for _, c := range d.Written {
				fmt.Fprintf(tw, "+ written\t%s\t%s\t%d\t%s\n", c.ID, c.Kind, c.CreatedEpisode, clip(c.Text, 90))
			}
			for _, c := range d.Evicted {
				fmt.Fprintf(tw, "- evicted\t%s\t%s\t%d\t%s\n", c.ID, c.Kind, c.EvictedEpisode, clip(c.Text, 90))
			}
			fmt.Fprintf(tw, "\t%d written, %d evicted between episodes %d and %d\t\t\t\n", len(d.Written), len(d.Evicted), d.From, d.To)
			return tw.Flush()
		}),
	}
	diff.Flags().IntVar(&from, "from", 0, "compare "+asOfHelp+"; default 0")
	diff.Flags().IntVar(&to, "to", 0, "with the bank as of episode M, as --from (without it: now)")
	diff.Flags().StringSliceVar(&diffRuns, "run", nil, "only cards of these runs")
	diff.Flags().BoolVar(&diffJSON, "json", false, "print the written and evicted cards as JSON")
	cmd.AddCommand(diff)
}
