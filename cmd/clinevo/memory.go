package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

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
			cards, err := memory.ReadCardsFile(args[0])
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
			if err == nil {
				res.Write(cmd.OutOrStdout(), args[0])
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&replace, "replace", false, "replace the cards of the bank that have the IDs of imported cards (each is named); without it such an import changes nothing")
	return cmd
}

func (a *app) memoryDiffCmd() *cobra.Command {
	var q memory.DiffAsked
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Cards written and evicted between the bank as of episode N and as of episode M (--from N --to M)",
		Example: `  clinevo memory diff --to 25                   # what the first 25 episodes wrote
  clinevo memory diff --from 25 --to 50 --run quick-E1
  clinevo memory diff --from 75 --json            # from episode 75 to now`,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			q.ToGiven = cmd.Flags().Changed("to")
			return badInput(q.Check()) // before the stores open: bad input exits 2
		},
		RunE: a.withEngine(true, func(cmd *cobra.Command, _ []string, eng *engine.Engine) error {
			d, err := q.Diff(cmd.Context(), eng.Memory)
			if err != nil {
				return err
			}
			return output(cmd, asJSON, map[string]any{"from": d.From, "to": d.To, "written": d.Written, "evicted": d.Evicted},
				func(w io.Writer) error { return memory.WriteDiff(w, d) })
		}),
	}
	cmd.Flags().IntVar(&q.From, "from", 0, "compare "+asOfHelp+"; default 0")
	cmd.Flags().IntVar(&q.To, "to", 0, "with the bank as of episode M, as --from (without it: now)")
	cmd.Flags().StringSliceVar(&q.Runs, "run", nil, "only cards of these runs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the written and evicted cards as JSON")
	return cmd
}
