package analysis

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/clinevo/clinevo/internal/textfmt"
)

// WriteComparison prints `clinevo compare`: per pair, the settings that
// differ, how the episodes were paired, a row per metric, and per stage the
// headline metrics of two streams.
func WriteComparison(w io.Writer, c RunComparison) error {
	byRun := map[string]ComparedRun{}
	for _, r := range c.Runs {
		byRun[r.Run] = r
	}
	for i, p := range c.Pairs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  vs  %s\n", describeRun(byRun[p.A]), describeRun(byRun[p.B]))
		writeSettingsDiff(w, p)
		for _, n := range p.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		fmt.Fprintln(w, p.Pairing())
		if err := writeMetricTable(w, p.A, p.B, p.Metric, false); err != nil {
			return err
		}
		if len(p.Stages) > 0 {
			fmt.Fprintln(w, "by stage (headline metrics):")
			for _, s := range p.Stages {
				fmt.Fprintf(w, "stage %d:\n", s.Stage)
				if err := writeMetricTable(w, p.A, p.B, s.Metrics, true); err != nil {
					return err
				}
			}
		}
	}
	fmt.Fprintf(w, "\nB−A is the second run minus the first; intervals: bootstrap 95%%, %d resamples, seed %d.\n", c.Resamples, c.BootstrapSeed)
	return nil
}

func describeRun(r ComparedRun) string {
	return fmt.Sprintf("%s (%s, %s, %d episodes)", r.Run, r.Kind, r.Benchmark, r.Episodes)
}

func writeSettingsDiff(w io.Writer, p PairDiff) {
	if len(p.Settings) == 0 {
		fmt.Fprintln(w, "settings: the same")
		return
	}
	fmt.Fprintln(w, "settings that differ:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  key\t%s\t%s\n", p.A, p.B)
	for _, d := range p.Settings {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", d.Key, textfmt.OrDash(d.A), textfmt.OrDash(d.B))
	}
	_ = tw.Flush() // w is a terminal or a buffer: a failed write shows in the table that follows
}

// Pairing says how the pair's episodes were matched.
func (p PairDiff) Pairing() string {
	if !p.Paired {
		return "unpaired: the runs share no case (difference of means, unpaired bootstrap, no signed-rank or McNemar test)"
	}
	cases := "cases"
	if p.Shared == 1 {
		cases = "case"
	}
	return fmt.Sprintf("paired by case: %d %s in both (%d only in %s, %d only in %s)", p.Shared, cases, p.OnlyA, p.A, p.OnlyB, p.B)
}

// writeMetricTable prints a row per metric (the headline ones only when
// headline is set).
func writeMetricTable(w io.Writer, a, b string, ms []MetricDiff, headline bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  metric\tn\t%s\t%s\tB−A\t95%% CI\tWilcoxon p\tMcNemar p (b/c)\t\n", a, b)
	for _, m := range ms {
		if headline && !m.Headline {
			continue
		}
		n := fmt.Sprintf("%d", m.NA)
		if !m.Paired {
			n = fmt.Sprintf("%d/%d", m.NA, m.NB)
		}
		title := m.Title
		if m.LowerBetter {
			title += " ↓"
		}
		wp, mc := "–", "–"
		if m.Wilcoxon != nil {
			wp = fmt.Sprintf("%.3g", m.Wilcoxon.P)
		}
		if m.McNemar != nil {
			mc = fmt.Sprintf("%.3g (%d/%d)", m.McNemar.P, m.McNemar.B, m.McNemar.C)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%+.3f\t[%+.3f, %+.3f]\t%s\t%s\t\n", title, n, num(m.MeanA), num(m.MeanB), m.MeanDiff, m.CI.Low, m.CI.High, wp, mc)
	}
	return tw.Flush()
}

// num prints a mean with three decimals, or as a whole number where it is
// large (cost in USD, grades).
func num(v float64) string {
	if v >= 1000 || v <= -1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
