package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/recorded"
)

func (a *app) memoryCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "memory", Short: "Query, inspect, export and import the memory bank (local or Qdrant)"}
	backendFlag(cmd.PersistentFlags())
	cmd.AddCommand(a.memoryQueryCmd(), a.memoryStatsCmd(), a.memoryShowCmd(), a.memoryExportCmd(), a.memoryImportCmd(), a.memoryDiffCmd())
	return cmd
}

func (a *app) memoryShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "One card with where it came from: run, episode, source case, the graded action",
		Args:  cobra.ExactArgs(1),
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			c, err := recorded.CardOf(cmd.Context(), eng.Memory, eng.Results, args[0])
			if err != nil {
				return err
			}
			return output(cmd, asJSON, c, c.Write)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the card and its episode as JSON")
	return cmd
}

func (a *app) memoryExportCmd() *cobra.Command {
	var out string
	var runs []string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write every card (evicted ones too) as JSONL, to seed another run or backend",
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			cards, err := eng.Memory.List(cmd.Context(), memory.Filter{Runs: runs, IncludeEvicted: true})
			if err != nil {
				return err
			}
			write := func(w io.Writer) error { return memory.WriteCards(w, cards) }
			if out == "" {
				return write(cmd.OutOrStdout())
			}
			if err := corpus.WriteAtomic(out, write); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d cards\n", out, len(cards))
			return nil
		}),
	}
	cmd.Flags().StringVar(&out, "out", "", "output file (default stdout)")
	cmd.Flags().StringSliceVar(&runs, "run", nil, "only cards of these runs")
	return cmd
}

func (a *app) memoryImportCmd() *cobra.Command {
	var replace bool
	cmd := &cobra.Command{
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
	cmd.Flags().BoolVar(&replace, "replace", false, "replace the cards of the bank that have the IDs of imported cards (each is named); without it such an import changes nothing")
	return cmd
}

func (a *app) memoryDiffCmd() *cobra.Command {
	var from, to int
	var runs []string
	var asJSON bool
	cmd := &cobra.Command{
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
			for _, r := range runs {
				if err := contract.ValidateConditionRunID(r); err != nil {
					return badInput(fmt.Errorf("memory diff: --run: %w", err))
				}
			}
			return nil
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			if !cmd.Flags().Changed("to") {
				last, err := memory.Latest(cmd.Context(), eng.Memory, runs) // now
				if err != nil {
					return err
				}
				to = max(last, from+1)
			}
			d, err := memory.DiffOf(cmd.Context(), eng.Memory, memory.Filter{Runs: runs}, from, to)
			if err != nil {
				return err
			}
			return output(cmd, asJSON, map[string]any{"from": d.From, "to": d.To, "written": d.Written, "evicted": d.Evicted},
				func(w io.Writer) error { return memory.WriteDiff(w, d) })
		}),
	}
	cmd.Flags().IntVar(&from, "from", 0, "compare "+asOfHelp+"; default 0")
	cmd.Flags().IntVar(&to, "to", 0, "with the bank as of episode M, as --from (without it: now)")
	cmd.Flags().StringSliceVar(&runs, "run", nil, "only cards of these runs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the written and evicted cards as JSON")
	return cmd
}
