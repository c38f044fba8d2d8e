package analysis

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/clinevo/clinevo/contract"
)

// WriteSummary prints the headline numbers of a report for a terminal: per
// condition its overall means and last stage, the recall/transfer splits,
// the transfers with their tests, BWT, the accuracy–cost planes and the
// benchmarks' own lines (Summarizer).
func WriteSummary(w io.Writer, rep Report) {
	for _, c := range rep.Conditions {
		late := "–"
		if n := len(c.Stages); n > 0 {
			late = fmt.Sprintf("%.3f", c.Stages[n-1].S)
		}
		u := "–" // only MedEvoEval defines U
		if c.DefinesU() {
			u = fmt.Sprintf("%.3f", c.Overall.U)
		}
		fmt.Fprintf(w, "%-4s %-8s n=%-4d S=%.3f strict=%.2f U=%s last-stage S=%s\n", c.Name, c.Kind, c.Overall.N, c.Overall.S, c.Overall.Strict, u, late)
	}
	writeEncounters(w, rep)
	for _, t := range rep.Transfer {
		fmt.Fprintf(w, "ET(S) %s vs %s = %+.3f  [%.3f, %.3f]  Wilcoxon p %s  (n=%d)\n", t.Name, t.Baseline, t.ETS, t.CI.Low, t.CI.High, PEquals(t.Wilcoxon.P), t.N)
	}
	for _, r := range rep.Retention {
		fmt.Fprintf(w, "BWT %s: S %s, U %s\n", r.Name, signed(r.BWTS), signed(r.BWTU))
	}
	writeOrderings(w, rep.Orderings)
	writeEpochs(w, rep.Epochs)
	for _, f := range rep.Frontiers {
		fmt.Fprintln(w, strings.Join(f.Lines(), "\n"))
	}
	for _, line := range rep.Summary {
		fmt.Fprintln(w, line)
	}
}

// writeEncounters prints each condition's recall/transfer split: a stream's
// first encounters against its seen-before episodes, a held-out condition's
// episodes by whether their opening, and their condition, was met in the
// memory lineage named at the end.
func writeEncounters(w io.Writer, rep Report) {
	side := func(label string, m StageMean) string {
		if m.N == 0 {
			return label + " n=0"
		}
		return fmt.Sprintf("%s n=%d S=%.3f", label, m.N, m.S)
	}
	for _, c := range rep.Conditions {
		e := c.Encounters
		switch {
		case e == nil:
		case c.Kind == string(contract.KindStream):
			fmt.Fprintf(w, "%-4s %s | %s\n", c.Name, side("first encounter", e.Condition.New), side("seen before", e.Condition.Seen))
		default:
			var opening string
			if o := e.Opening; o != nil {
				opening = side("opening seen", o.Seen) + " | " + side("new", o.New) + "; "
			}
			fmt.Fprintf(w, "%-4s %s%s | %s  (lineage %s)\n", c.Name, opening, side("condition seen", e.Condition.Seen), side("new", e.Condition.New),
				strings.Join(e.Lineage, " "))
		}
	}
}

// signed spells an optional difference with its sign, "–" when absent.
func signed(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%+.3f", *p)
}

// WriteStageTable prints stage means of runs side by side, by stage, then
// by the runs' labels (labels names each run as the table shows it).
func WriteStageTable(w io.Writer, means []StageMean, labels map[string]string) error {
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
	return tw.Flush()
}
