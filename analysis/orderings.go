package analysis

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/contract"
)

// Orderings is what an experiment played over several orderings of its
// cases (ExperimentSpec.Orderings) says: each repeated condition's numbers
// per ordering with their spread and an interval across orderings, and
// whether each comparison's conclusion holds in every ordering.
type Orderings struct {
	N     int      `json:"n"`
	Seeds []uint64 `json:"seeds"` // per ordering; 0 is the published order
	// Conditions are the repeated conditions, by the name of the first
	// ordering's, in spec order.
	Conditions  []OrderedCondition  `json:"conditions"`
	Comparisons []OrderedComparison `json:"comparisons,omitempty"`
	Transfers   []OrderedComparison `json:"transfers,omitempty"`
}

// OrderedCondition is one condition over the orderings.
type OrderedCondition struct {
	Name string   `json:"name"`
	Kind string   `json:"kind"`
	Runs []string `json:"runs"` // per ordering
	// Overall is the mean S of each ordering's run; Final its last stage's
	// (streams only).
	Overall Spread `json:"overall_s"`
	Final   Spread `json:"final_stage_s,omitzero"`
	// Stages are the stage means of S averaged over the orderings, with the
	// interval across orderings (StageCI).
	Stages  []StageMean `json:"stages,omitempty"`
	StageCI []Interval  `json:"stage_ci_s,omitempty"`
}

// Spread is one number over the orderings: each ordering's value, their
// mean, the interval across orderings (AcrossOrderings), and the range and
// standard deviation that show how much the order moved it.
type Spread struct {
	Values []float64 `json:"values"`
	Mean   float64   `json:"mean"`
	CI     Interval  `json:"ci"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	SD     float64   `json:"sd"`
}

// OrderedComparison is one paired comparison (or held-out transfer) over the
// orderings: the case-level mean difference and bootstrap interval of each
// ordering, the interval across orderings of those means, and whether the
// verdict of the published order (B above A, below A, or no difference
// at 95%) is the verdict of every ordering.
type OrderedComparison struct {
	Pair    [2]string  `json:"pair"` // A (the baseline), B
	Metric  string     `json:"metric"`
	Diff    Spread     `json:"mean_diff"`
	CaseCIs []Interval `json:"case_ci"` // per ordering, across cases
	Verdict []string   `json:"verdict"` // per ordering: "higher", "lower" or "no difference"
	Holds   bool       `json:"holds_in_every_ordering"`
}

// tQuantile975 is Student's t 0.975 quantile for 1 to 20 degrees of freedom
// (any statistics table): the interval across N orderings is the mean ± t ·
// sd / √N with N − 1 degrees of freedom. With 3 orderings t is 4.303: the
// interval is wide, as three draws of an order allow.
var tQuantile975 = []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086}

// AcrossOrderings is the spread of one number over the orderings. The
// interval is Student's t over the orderings' values (clinevo's choice: the
// orderings are the sampling unit; with one ordering there is none).
func AcrossOrderings(xs []float64) Spread {
	s := Spread{Values: roundAll(xs), Mean: Mean(xs)}
	if len(xs) == 0 {
		return s
	}
	s.Min, s.Max = slices.Min(xs), slices.Max(xs)
	if n := len(xs); n > 1 {
		ss := 0.0
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(n-1))
		t := tQuantile975[min(n-1, len(tQuantile975))-1]
		half := t * s.SD / math.Sqrt(float64(n))
		s.CI = Interval{Low: s.Mean - half, High: s.Mean + half}
	} else {
		s.CI = Interval{Low: s.Mean, High: s.Mean}
	}
	return s
}

// orderingsOf groups an expanded spec's repeated conditions: by the name of
// the first ordering's condition, each ordering's condition name.
func orderingsOf(spec contract.ExperimentSpec) (bases []string, names map[string][]string) {
	names = map[string][]string{}
	for _, c := range spec.Conditions {
		if c.Ordering == 0 {
			continue
		}
		base := c.Name
		if c.Replicates != "" {
			base = c.Replicates
		}
		if _, ok := names[base]; !ok {
			bases = append(bases, base)
			names[base] = make([]string, spec.Orderings)
		}
		if c.Ordering <= spec.Orderings {
			names[base][c.Ordering-1] = c.Name
		}
	}
	return bases, names
}

// orderings builds the report's Orderings from the conditions, comparisons
// and transfers already in rep; nil without orderings.
func orderings(spec contract.ExperimentSpec, rep Report) *Orderings {
	if spec.Orderings <= 1 || !spec.Expanded() {
		return nil
	}
	o := &Orderings{N: spec.Orderings}
	for k := 1; k <= spec.Orderings; k++ {
		o.Seeds = append(o.Seeds, spec.SeedOf(k))
	}
	bases, names := orderingsOf(spec)
	byName := map[string]ConditionReport{}
	for _, c := range rep.Conditions {
		byName[c.Name] = c
	}
	ordering := map[string]int{} // condition name -> its ordering, 1-based
	base := map[string]string{}
	for _, b := range bases {
		o.Conditions = append(o.Conditions, orderedCondition(b, names[b], byName))
		for k, n := range names[b] {
			ordering[n], base[n] = k+1, b
		}
	}
	o.Comparisons = orderedComparisons(spec.Orderings, comparisonsOf(rep.Comparisons), ordering, base)
	o.Transfers = orderedComparisons(spec.Orderings, transfersOf(rep.Transfer), ordering, base)
	return o
}

// orderedCondition is base's condition over the orderings (names: each
// ordering's condition).
func orderedCondition(base string, names []string, byName map[string]ConditionReport) OrderedCondition {
	oc := OrderedCondition{Name: base, Kind: byName[base].Kind}
	var overall, final []float64
	for _, n := range names {
		c := byName[n]
		oc.Runs = append(oc.Runs, c.Run)
		overall = append(overall, c.Overall.S)
		if len(c.Stages) > 0 {
			final = append(final, c.Stages[len(c.Stages)-1].S)
		}
	}
	oc.Overall = AcrossOrderings(overall)
	if len(final) == len(names) {
		oc.Final = AcrossOrderings(final)
		oc.Stages, oc.StageCI = stagesAcross(names, byName)
	}
	return oc
}

// stagesAcross averages each stage's mean S over the orderings, with the
// interval across them; a stage not every ordering reached is left out.
func stagesAcross(names []string, byName map[string]ConditionReport) ([]StageMean, []Interval) {
	var means []StageMean
	var cis []Interval
	for j := 0; ; j++ {
		var xs []float64
		n := 0
		for _, name := range names {
			st := byName[name].Stages
			if j >= len(st) {
				return means, cis
			}
			xs = append(xs, st[j].S)
			n += st[j].N
		}
		sp := AcrossOrderings(xs)
		means = append(means, StageMean{Stage: j + 1, N: n, S: sp.Mean})
		cis = append(cis, sp.CI)
	}
}

// pairedResult is one comparison of two conditions in one ordering.
type pairedResult struct {
	A, B, Metric string
	Mean         float64
	CI           Interval
}

func comparisonsOf(cs []Comparison) []pairedResult {
	out := make([]pairedResult, len(cs))
	for i, c := range cs {
		out[i] = pairedResult{c.A, c.B, c.Metric, c.MeanDiff, c.CI}
	}
	return out
}

// transfersOf are the transfers' ET(S), and where the report splits it
// (encounters.go) its seen and unseen sides, as paired results.
func transfersOf(ts []Transfer) []pairedResult {
	var out []pairedResult
	for _, t := range ts {
		out = append(out, pairedResult{t.Baseline, t.Name, "ET(S)", t.ETS, t.CI})
		if s := t.ByCondition; s != nil && s.Seen.N > 0 && s.New.N > 0 {
			out = append(out, pairedResult{t.Baseline, t.Name, "ET(S) seen", s.Seen.ETS, s.Seen.CI},
				pairedResult{t.Baseline, t.Name, "ET(S) unseen", s.New.ETS, s.New.CI})
		}
	}
	return out
}

// orderedComparisons gathers each comparison over the orderings: a
// comparison whose B is repeated (ordering, base) is placed in B's ordering,
// under the names of the first ordering's conditions; A is repeated with it,
// or is played once (a held-out condition that reads no stream).
func orderedComparisons(n int, rs []pairedResult, ordering map[string]int, base map[string]string) []OrderedComparison {
	type key struct{ a, b, metric string }
	var keys []key
	per := map[key][]*pairedResult{}
	for i, r := range rs {
		k := ordering[r.B]
		if k == 0 || (ordering[r.A] != 0 && ordering[r.A] != k) {
			continue
		}
		a := r.A
		if ba, ok := base[r.A]; ok {
			a = ba
		}
		kk := key{a, base[r.B], r.Metric}
		if _, ok := per[kk]; !ok {
			keys = append(keys, kk)
			per[kk] = make([]*pairedResult, n)
		}
		per[kk][k-1] = &rs[i]
	}
	var out []OrderedComparison
	for _, kk := range keys {
		if slices.Contains(per[kk], nil) {
			continue // not in every ordering
		}
		oc := OrderedComparison{Pair: [2]string{kk.a, kk.b}, Metric: kk.metric, Holds: true}
		var means []float64
		for _, r := range per[kk] {
			means = append(means, r.Mean)
			oc.CaseCIs = append(oc.CaseCIs, r.CI)
			oc.Verdict = append(oc.Verdict, verdict(r.CI))
		}
		oc.Diff = AcrossOrderings(means)
		for _, v := range oc.Verdict {
			oc.Holds = oc.Holds && v == oc.Verdict[0]
		}
		out = append(out, oc)
	}
	return out
}

// verdict is what a case-level 95% interval of B − A concludes.
func verdict(ci Interval) string {
	switch {
	case ci.Low > 0:
		return "higher"
	case ci.High < 0:
		return "lower"
	}
	return "no difference"
}

// writeOrderings prints, for a terminal, each repeated condition's spread
// over the orderings and every S comparison and transfer whose conclusion
// does not hold in every ordering.
func writeOrderings(w io.Writer, o *Orderings) {
	if o == nil {
		return
	}
	seeds := make([]string, len(o.Seeds))
	for i, s := range o.Seeds {
		seeds[i] = fmt.Sprint(s)
	}
	fmt.Fprintf(w, "orderings: %d (seeds %s; 0 is the published order); S across orderings, mean [95%% t interval] (min–max):\n", o.N, strings.Join(seeds, ", "))
	for _, c := range o.Conditions {
		line := fmt.Sprintf("  %-4s overall %s", c.Name, spreadText(c.Overall))
		if len(c.Final.Values) > 0 {
			line += "  last stage " + spreadText(c.Final)
		}
		fmt.Fprintln(w, line)
	}
	held, all := 0, 0
	transfer := map[[2]string]bool{}
	for _, t := range o.Transfers {
		transfer[t.Pair] = true
	}
	for _, c := range append(slices.Clone(o.Transfers), o.Comparisons...) {
		if (c.Metric != "S" && !strings.HasPrefix(c.Metric, "ET(S)")) || (c.Metric == "S" && transfer[c.Pair]) {
			continue // ET(S) is the paired comparison of S of a transfer's two conditions
		}
		all++
		if c.Holds {
			held++
			continue
		}
		fmt.Fprintf(w, "  does not hold in every ordering: %s vs %s (%s): %s\n", c.Pair[1], c.Pair[0], c.Metric, verdictText(c))
	}
	fmt.Fprintf(w, "  comparisons of S that hold in every ordering: %d of %d\n", held, all)
}

func spreadText(s Spread) string {
	return fmt.Sprintf("%.3f [%.3f, %.3f] (%.3f–%.3f)", s.Mean, s.CI.Low, s.CI.High, s.Min, s.Max)
}

// verdictText spells each ordering's difference with its verdict.
func verdictText(c OrderedComparison) string {
	parts := make([]string, len(c.Verdict))
	for i, v := range c.Verdict {
		parts[i] = fmt.Sprintf("ordering %d %+.3f [%.3f, %.3f] %s", i+1, c.Diff.Values[i], c.CaseCIs[i].Low, c.CaseCIs[i].High, v)
	}
	return strings.Join(parts, "; ")
}

// orderingsHTML is the report's section on the orderings: the learning
// curves averaged over the orderings with their interval across orderings,
// the order-robustness figure, and the tables.
func orderingsHTML(o *Orderings) template.HTML {
	if o == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<h2 id="orderings">Orderings</h2><p>Every stream condition, and every condition that reads one, was played over %d orderings of the same cases: the published order (ordering 1) and seeded permutations (seeds %s). A held-out condition that reads no stream is the same in every ordering and was played once. Intervals across orderings are Student t 95%% intervals over the orderings' values (with %d orderings, %d degrees of freedom); intervals across cases are each ordering's bootstrap intervals. A comparison <em>holds</em> when every ordering's case-level interval gives the same verdict (higher, lower, or no difference).</p>`,
		o.N, template.HTMLEscapeString(fmt.Sprint(o.Seeds)), o.N, o.N-1)
	var curves Report
	for _, c := range o.Conditions {
		if len(c.Stages) > 0 {
			curves.Conditions = append(curves.Conditions, ConditionReport{Name: c.Name, Stages: c.Stages, StageCI: c.StageCI})
		}
	}
	if len(curves.Conditions) > 0 {
		b.WriteString(string(curvesTitled(curves, "S", "S by stage, mean over the orderings, with 95% bands across orderings", func(m StageMean) float64 { return m.S }, 0, 1, true)))
	}
	b.WriteString(string(robustnessChart(o)))
	b.WriteString(`<table class="orderings"><tr><th>condition</th><th>kind</th><th>S per ordering</th><th>mean S [95% across orderings]</th><th>sd</th><th>last-stage S per ordering</th><th>mean [95% across orderings]</th><th>sd</th></tr>`)
	for _, c := range o.Conditions {
		fmt.Fprintf(&b, `<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.3f</td>`, template.HTMLEscapeString(c.Name), c.Kind, values(c.Overall), meanCI(c.Overall), c.Overall.SD)
		if len(c.Final.Values) > 0 {
			fmt.Fprintf(&b, `<td>%s</td><td>%s</td><td>%.3f</td></tr>`, values(c.Final), meanCI(c.Final), c.Final.SD)
		} else {
			b.WriteString(`<td>–</td><td>–</td><td>–</td></tr>`)
		}
	}
	b.WriteString(`</table>`)
	comparisonsTable(&b, append(slices.Clone(o.Transfers), o.Comparisons...))
	return template.HTML(b.String())
}

func values(s Spread) string {
	parts := make([]string, len(s.Values))
	for i, v := range s.Values {
		parts[i] = fmt.Sprintf("%.3f", v)
	}
	return strings.Join(parts, " / ")
}

func meanCI(s Spread) string {
	return fmt.Sprintf("%.3f [%.3f, %.3f]", s.Mean, s.CI.Low, s.CI.High)
}

// comparisonsTable lists the comparisons over the orderings, each
// ordering's difference with its case interval and verdict.
func comparisonsTable(b *strings.Builder, cs []OrderedComparison) {
	if len(cs) == 0 {
		return
	}
	b.WriteString(`<h3>Comparisons over the orderings</h3><table class="orderings-comparisons"><tr><th>A (baseline)</th><th>B</th><th>metric</th><th>B − A per ordering [95% across cases]</th><th>mean [95% across orderings]</th><th>holds in every ordering</th></tr>`)
	for _, c := range cs {
		var per []string
		for i, v := range c.Diff.Values {
			per = append(per, fmt.Sprintf("%+.3f [%.3f, %.3f] %s", v, c.CaseCIs[i].Low, c.CaseCIs[i].High, c.Verdict[i]))
		}
		holds := "yes"
		if !c.Holds {
			holds = "<strong>no</strong>"
		}
		fmt.Fprintf(b, `<tr><td>%s</td><td>%s</td><td>%s</td><td class="text">%s</td><td>%s</td><td>%s</td></tr>`, template.HTMLEscapeString(c.Pair[0]), template.HTMLEscapeString(c.Pair[1]),
			template.HTMLEscapeString(c.Metric), template.HTMLEscapeString(strings.Join(per, "; ")), meanCI(c.Diff), holds)
	}
	b.WriteString(`</table>`)
}

// robustnessChart is the order-robustness figure: for each repeated stream
// condition its last-stage S in every ordering (dots) and their range
// (bar), and for each held-out transfer its ET(S) the same way, on one
// axis per panel.
func robustnessChart(o *Orderings) template.HTML {
	type row struct {
		name string
		s    Spread
	}
	var finals, ets []row
	for _, c := range o.Conditions {
		if len(c.Final.Values) > 0 {
			finals = append(finals, row{c.Name, c.Final})
		}
	}
	for _, t := range o.Transfers {
		ets = append(ets, row{strings.TrimSpace(t.Pair[1] + " vs " + t.Pair[0] + " " + strings.TrimPrefix(t.Metric, "ET(S)")), t.Diff})
	}
	const W, rowH, L, R = 640, 22, 190, 30
	var b strings.Builder
	panel := func(title string, rows []row, lo, hi float64) {
		if len(rows) == 0 {
			return
		}
		ticks := NiceTicks(lo, hi, 6)
		H := 60 + rowH*len(rows)
		px := func(v float64) float64 { return L + (v-ticks.Lo)*float64(W-L-R)/(ticks.Hi-ticks.Lo) }
		fmt.Fprintf(&b, `<svg class="chart robustness" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" height="%d">`, template.HTMLEscapeString(title), W, H, W, H)
		ChartTitle(&b, 6, title)
		for _, v := range ticks.Values() {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="30" y2="%d" stroke="#ddd"/><text class="xtick" x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`, px(v), px(v), H-24, px(v), H-8, ticks.Label(v))
		}
		for i, r := range rows {
			y := 40 + i*rowH
			col := Palette[i%len(Palette)]
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text><line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="2"/>`,
				L-8, y+4, template.HTMLEscapeString(r.name), px(r.s.Min), px(r.s.Max), y, y, col)
			for k, v := range r.s.Values {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="4" fill="%s"><title>%s ordering %d: %.3f</title></circle>`, px(v), y, col, template.HTMLEscapeString(r.name), k+1, v)
			}
		}
		b.WriteString(`</svg>`)
	}
	panel("Order robustness: last-stage S in each ordering", finals, 0, 1)
	lo, hi := -0.1, 0.1
	for _, r := range ets {
		lo, hi = min(lo, r.s.Min), max(hi, r.s.Max)
	}
	panel("Order robustness: ET(S) in each ordering", ets, lo, hi)
	return template.HTML(b.String())
}

// orderingRows is orderings.csv: one row per repeated condition and
// ordering.
func orderingRows(o *Orderings) [][]string {
	rows := [][]string{{"condition", "kind", "ordering", "seed", "run", "s", "last_stage_s"}}
	for _, c := range o.Conditions {
		for k, run := range c.Runs {
			last := ""
			if len(c.Final.Values) > k {
				last = f4(c.Final.Values[k])
			}
			rows = append(rows, []string{c.Name, c.Kind, fmt.Sprint(k + 1), fmt.Sprint(o.Seeds[k]), run, f4(c.Overall.Values[k]), last})
		}
	}
	return rows
}
