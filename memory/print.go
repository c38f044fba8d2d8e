package memory

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/clinevo/clinevo/internal/textfmt"
)

// WriteHits prints `memory query`'s table: one row per card, best first,
// with its utility as read (as of the query's episode; "-": never credited).
func WriteHits(w io.Writer, hits []Hit) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tID\tKIND\tRUN\tEPISODE\tEVICTED\tUTILITY\tTEXT")
	for _, h := range hits {
		u := "-"
		if n := len(h.Card.Utility); n > 0 {
			u = fmt.Sprintf("%.3f", h.Card.Utility[n-1].Q)
		}
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", h.Score, h.Card.ID, h.Card.Kind, h.Card.Run, h.Card.CreatedEpisode, h.Card.EvictedEpisode, u, textfmt.Clip(h.Card.Text, 100))
	}
	return tw.Flush()
}

// WriteStats prints a bank's counts as tables: totals, live cards by kind,
// bank and stage, and the most retrieved cards.
func WriteStats(w io.Writer, st Stats) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CARDS\tLIVE\tEVICTED\tEMBEDDER\tDIM")
	fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%d\n", st.Total, st.Live, st.Evicted, st.Model, st.Dim)
	fmt.Fprintln(tw, "\nKIND\tLIVE")
	for _, k := range slices.Sorted(maps.Keys(st.ByKind)) {
		fmt.Fprintf(tw, "%s\t%d\n", k, st.ByKind[k])
	}
	fmt.Fprintln(tw, "\nBANK\tLIVE")
	for _, b := range slices.Sorted(maps.Keys(st.ByBank)) {
		fmt.Fprintf(tw, "%s\t%d\n", b, st.ByBank[b])
	}
	fmt.Fprintln(tw, "\nSTAGE\tLIVE")
	for _, s := range slices.Sorted(maps.Keys(st.ByStage)) {
		fmt.Fprintf(tw, "%d\t%d\n", s, st.ByStage[s])
	}
	fmt.Fprintln(tw, "\nMOST RETRIEVED\tID\tKIND\tRUN\tEPISODE\tTEXT")
	for _, c := range st.MostRetrieved {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", c.Retrievals, c.ID, c.Kind, c.Run, c.CreatedEpisode, textfmt.Clip(c.Text, 80))
	}
	return tw.Flush()
}

// WriteDiff prints `memory diff`'s table: the cards written, then those
// evicted, then the counts.
func WriteDiff(w io.Writer, d Diff) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANGE\tID\tKIND\tEPISODE\tTEXT")
	for _, c := range d.Written {
		fmt.Fprintf(tw, "+ written\t%s\t%s\t%d\t%s\n", c.ID, c.Kind, c.CreatedEpisode, textfmt.Clip(c.Text, 90))
	}
	for _, c := range d.Evicted {
		fmt.Fprintf(tw, "- evicted\t%s\t%s\t%d\t%s\n", c.ID, c.Kind, c.EvictedEpisode, textfmt.Clip(c.Text, 90))
	}
	fmt.Fprintf(tw, "\t%d written, %d evicted between episodes %d and %d\t\t\t\n", len(d.Written), len(d.Evicted), d.From, d.To)
	return tw.Flush()
}

// Latest is the last episode any card of runs names, written or evicted
// (evicted cards included; 0: no card): the bank's "now" as an episode.
func Latest(ctx context.Context, st Store, runs []string) (int, error) {
	cards, err := st.List(ctx, Filter{Runs: runs, IncludeEvicted: true})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cards {
		n = max(n, c.CreatedEpisode, c.EvictedEpisode)
	}
	return n, nil
}
