package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/memory"
)

// ReadCards reads a memory export (JSONL, one card a line). Every line is
// checked before anything is written, so a bad file leaves no partial bank.
func ReadCards(r io.Reader, name string) ([]clinic.Card, error) {
	var out []clinic.Card
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var c clinic.Card
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("%s:%d: field id: required", name, line)
		case c.Kind == "":
			return nil, fmt.Errorf("%s:%d: field kind: required", name, line)
		case c.Run == "":
			return nil, fmt.Errorf("%s:%d: field run: required", name, line)
		}
		if first, ok := seen[c.ID]; ok {
			return nil, fmt.Errorf("%s:%d: field id: duplicate card %s (first on line %d)", name, line, c.ID, first)
		}
		seen[c.ID] = line
		out = append(out, c)
	}
	return out, sc.Err()
}

func (a *app) memoryBankCmds(cmd *cobra.Command) {
	cmd.AddCommand(&cobra.Command{
		Use:   "show ID",
		Short: "One card with where it came from: run, episode, source case, the graded action",
		Args:  cobra.ExactArgs(1),
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			c, err := eng.Memory.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			out := map[string]any{"card": c}
			recs, err := eng.Results.Records(cmd.Context(), c.Run)
			if err != nil {
				return err
			}
			for _, r := range recs {
				if r.Number == c.CreatedEpisode && r.CaseID == c.SourceCase {
					out["episode"] = map[string]any{"workflow_id": r.WorkflowID, "case": r.CaseID, "stage": r.Stage, "s": r.Scores.S, "labels": r.Labels}
				}
			}
			return printJSON(cmd, out)
		}),
	})
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
			write := func(w io.Writer) error {
				enc := json.NewEncoder(w)
				for i := range cards {
					if err := enc.Encode(&cards[i]); err != nil {
						return err
					}
				}
				return nil
			}
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
	cmd.AddCommand(&cobra.Command{
		Use:   "import FILE",
		Short: "Load a memory export into the configured backend (evictions are restored, retrieval counts start at zero)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			cards, err := ReadCards(f, args[0])
			if err != nil {
				return err
			}
			eng, err := a.openEngine(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			if err := importCards(cmd, eng.Memory, cards); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d cards from %s\n", len(cards), args[0])
			return nil
		},
	})
	var from, to int
	var diffRuns []string
	diff := &cobra.Command{
		Use:   "diff",
		Short: "Cards written and evicted between two episodes (--from N --to M)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from < 0 || to <= from {
				return fmt.Errorf("memory diff: need 0 <= --from < --to, got %d and %d", from, to)
			}
			eng, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			at := func(n int) (map[string]clinic.Card, error) {
				f := memory.Filter{Runs: diffRuns, AsOf: n}
				if n == 0 {
					return map[string]clinic.Card{}, nil
				}
				cards, err := eng.Memory.List(cmd.Context(), f)
				m := map[string]clinic.Card{}
				for _, c := range cards {
					m[c.ID] = c
				}
				return m, err
			}
			before, err := at(from)
			if err != nil {
				return err
			}
			after, err := at(to)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "CHANGE\tID\tKIND\tEPISODE\tTEXT")
			added, gone := 0, 0
			all, err := eng.Memory.List(cmd.Context(), memory.Filter{Runs: diffRuns, IncludeEvicted: true})
			if err != nil {
				return err
			}
			for _, c := range all {
				_, was := before[c.ID]
				_, is := after[c.ID]
				switch {
				case is && !was:
					added++
					fmt.Fprintf(tw, "+ written\t%s\t%s\t%d\t%s\n", c.ID, c.Kind, c.CreatedEpisode, clip(c.Text, 90))
				case was && !is:
					gone++
					fmt.Fprintf(tw, "- evicted\t%s\t%s\t%d\t%s\n", c.ID, c.Kind, c.EvictedEpisode, clip(c.Text, 90))
				}
			}
			fmt.Fprintf(tw, "\t%d written, %d evicted between episodes %d and %d\t\t\t\n", added, gone, from, to)
			return tw.Flush()
		},
	}
	diff.Flags().IntVar(&from, "from", 0, "episode number (0: empty memory)")
	diff.Flags().IntVar(&to, "to", 0, "episode number")
	diff.Flags().StringSliceVar(&diffRuns, "run", nil, "only cards of these runs")
	cmd.AddCommand(diff)
}

// importCards upserts cards and restores their evictions.
func importCards(cmd *cobra.Command, st memory.Store, cards []clinic.Card) error {
	if err := st.Upsert(cmd.Context(), cards); err != nil {
		return err
	}
	byEpisode := map[int][]string{}
	var order []int
	for _, c := range cards {
		if c.EvictedEpisode > 0 {
			if byEpisode[c.EvictedEpisode] == nil {
				order = append(order, c.EvictedEpisode)
			}
			byEpisode[c.EvictedEpisode] = append(byEpisode[c.EvictedEpisode], c.ID)
		}
	}
	for _, n := range order {
		if err := st.Evict(cmd.Context(), byEpisode[n], n); err != nil {
			return err
		}
	}
	return nil
}
