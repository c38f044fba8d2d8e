package analysis

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
)

// The accuracy–cost frontier (Nori et al. 2025, §4, Figures 7 and 9:
// methods compared by diagnostic accuracy against mean cost per case, with
// the Pareto frontier drawn through the best trade-offs, one plane per case
// set: the paper draws its 248 validation and 56 test cases apart), for
// every benchmark that declares a headline cost metric. Only conditions
// played on the same cases share a plane. It is generic: a benchmark takes
// part by what it declares (a headline cost_usd), and its accuracy axis is
// its first headline metric that improves upward, other than the shared S
// (S where it has none).

// CostMetric is the shared score the frontier's cost axis reads.
const CostMetric = "cost_usd"

// Frontier is one benchmark's accuracy–cost plane over one set of cases.
type Frontier struct {
	Benchmark string `json:"benchmark"`
	// CaseSet names the cases every point of the plane was played on: the
	// corpus and how many ("builtin:<split>@7, 100 cases").
	CaseSet string `json:"case_set"`
	// Accuracy is the metric on the accuracy axis, with its title and bounds.
	Accuracy      string          `json:"accuracy_metric"`
	AccuracyTitle string          `json:"accuracy_title"`
	Min           float64         `json:"accuracy_min"`
	Max           float64         `json:"accuracy_max"`
	Points        []FrontierPoint `json:"points"`
}

// FrontierPoint is one condition: mean accuracy and mean cost per case with
// seeded bootstrap 95% intervals; the cost per correct diagnosis (total cost
// over the sum of accuracy, for an accuracy bounded in [0, 1]: exactly the
// paper's cost per correct diagnosis where accuracy is 0 or 1 per case; nil
// with none correct); whether it is on the Pareto frontier, and, if not, the
// conditions that dominate it.
type FrontierPoint struct {
	Condition      string   `json:"condition"`
	N              int      `json:"n"`
	Accuracy       float64  `json:"accuracy"`
	AccuracyCI     Interval `json:"accuracy_ci"`
	Cost           float64  `json:"cost_usd"`
	CostCI         Interval `json:"cost_ci"`
	CostPerCorrect *float64 `json:"cost_per_correct_usd,omitempty"`
	Pareto         bool     `json:"pareto"`
	DominatedBy    []string `json:"dominated_by,omitempty"`
}

// accuracyMetric is b's accuracy axis, false for a benchmark without a
// headline cost metric.
func accuracyMetric(b bench.Benchmark) (bench.Metric, bool) {
	ms := b.Metrics()
	if !slices.ContainsFunc(ms, func(m bench.Metric) bool { return m.Name == CostMetric && m.Headline }) {
		return bench.Metric{}, false
	}
	var s *bench.Metric
	for i, m := range ms {
		switch {
		case m.Name == "s":
			s = &ms[i]
		case m.Headline && m.Direction == bench.HigherBetter:
			return m, true
		}
	}
	if s == nil {
		return bench.Metric{}, false
	}
	return *s, true
}

// ScoreValue is a record's value of a declared metric: a shared score by
// its JSON name, else the benchmark's own metric; false where the episode
// does not define it.
func ScoreValue(s clinic.Scores, m bench.Metric) (float64, bool) {
	if !m.Shared {
		v, ok := s.Metrics[m.Name]
		return v, ok
	}
	switch m.Name {
	case "s":
		return s.S, true
	case "strict":
		return boolf(s.Strict), true
	case "pass":
		return boolf(s.Pass), true
	case "grade":
		return float64(s.Grade), true
	case "diagnosis":
		return s.Diagnosis, true
	case "u":
		return s.U, true
	case "t":
		return float64(s.T), true
	case "e":
		return float64(s.E), true
	case "r":
		return s.R, true
	case CostMetric:
		return s.Cost, true
	}
	return 0, false
}

// frontiers are the planes of rep's benchmarks that declare a headline
// cost, one per benchmark and set of cases (the conditions whose episodes
// played the same case IDs), in condition order.
func frontiers(rep Report) []Frontier {
	var out []Frontier
	idx := map[string]int{}
	labels := map[string]int{} // plane labels given, to tell apart two sets of a corpus with as many cases
	for _, c := range rep.Conditions {
		b := c.Bench
		if b == nil || len(c.Episodes) == 0 {
			continue
		}
		acc, ok := accuracyMetric(b)
		if !ok {
			continue
		}
		key := b.Name() + "\x00" + caseSetKey(c.Episodes)
		i, seen := idx[key]
		if !seen {
			label := fmt.Sprintf("%s, %d cases", c.Corpus, len(c.Episodes))
			if len(c.Episodes) == 1 {
				label = c.Corpus + ", 1 case"
			}
			if labels[b.Name()+label]++; labels[b.Name()+label] > 1 {
				label += fmt.Sprintf(" (set %d)", labels[b.Name()+label])
			}
			i = len(out)
			idx[key] = i
			out = append(out, Frontier{Benchmark: b.Name(), CaseSet: label, Accuracy: acc.Name, AccuracyTitle: acc.Title, Min: acc.Min, Max: acc.Max})
		}
		out[i].Points = append(out[i].Points, frontierPoint(c.Name, c.Episodes, acc))
	}
	for i := range out {
		Pareto(out[i].Points)
	}
	return out
}

// caseSetKey identifies the cases records were played on.
func caseSetKey(recs []results.Record) string {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.CaseID
	}
	sort.Strings(ids)
	return strings.Join(ids, "\x00")
}

func frontierPoint(name string, recs []results.Record, acc bench.Metric) FrontierPoint {
	var accs, costs []float64
	total := 0.0
	for _, r := range recs {
		if v, ok := ScoreValue(r.Scores, acc); ok {
			accs = append(accs, v)
		}
		costs = append(costs, r.Scores.Cost)
		total += r.Scores.Cost
	}
	p := FrontierPoint{Condition: name, N: len(recs), Accuracy: mean(accs), AccuracyCI: BootstrapMean(accs, 1000, Seed),
		Cost: mean(costs), CostCI: BootstrapMean(costs, 1000, Seed)}
	if correct := p.Accuracy * float64(len(accs)); acc.Min >= 0 && acc.Max <= 1 && correct > 1e-9 {
		cpc := total / correct
		p.CostPerCorrect = &cpc
	}
	return p
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Pareto marks the points on the accuracy–cost Pareto frontier and lists,
// for every other one, the points that dominate it: q dominates p when q
// costs no more and is no less accurate, and is strictly better in one of
// the two. Equal points dominate neither.
func Pareto(ps []FrontierPoint) {
	for i := range ps {
		ps[i].DominatedBy = nil
		for j, q := range ps {
			if i != j && q.Cost <= ps[i].Cost && q.Accuracy >= ps[i].Accuracy && (q.Cost < ps[i].Cost || q.Accuracy > ps[i].Accuracy) {
				ps[i].DominatedBy = append(ps[i].DominatedBy, q.Condition)
			}
		}
		ps[i].Pareto = len(ps[i].DominatedBy) == 0
	}
}

// Lines are the plane as a terminal prints it: a heading, then a point a
// line with its intervals and whether it is on the frontier.
func (f Frontier) Lines() []string {
	out := []string{fmt.Sprintf("frontier %s on %s (%s, mean cost per case USD, bootstrap 95%% intervals):", f.Benchmark, f.CaseSet, f.AccuracyTitle)}
	for _, p := range f.Points {
		mark := "on the frontier"
		if !p.Pareto {
			mark = "dominated by " + strings.Join(p.DominatedBy, ", ")
		}
		out = append(out, fmt.Sprintf("  %-4s n=%-4d %.3f [%.3f, %.3f]  cost %.0f [%.0f, %.0f]  %s", p.Condition, p.N, p.Accuracy, p.AccuracyCI.Low, p.AccuracyCI.High,
			p.Cost, p.CostCI.Low, p.CostCI.High, mark))
	}
	return out
}

// frontierHTML is the report's section of the frontiers: per benchmark, the
// plane (FrontierChart) and the table of points with the dominated ones
// named.
func frontierHTML(fs []Frontier) template.HTML {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<h2 id="frontier">Accuracy–cost frontier</h2><p>Each condition as mean accuracy against mean cost per case, with seeded bootstrap 95% intervals; the line joins the Pareto-optimal conditions (no other is at least as accurate for no more cost), hollow points are dominated: the plane on which Nori et al. (2025) compare diagnostic methods. Only conditions played on the same cases share a plane.</p>`)
	for _, f := range fs {
		fmt.Fprintf(&b, `<h3>%s on %s: %s against cost</h3>`, template.HTMLEscapeString(f.Benchmark), template.HTMLEscapeString(f.CaseSet), template.HTMLEscapeString(f.AccuracyTitle))
		b.WriteString(string(FrontierChart(f)))
		b.WriteString(`<table class="frontier"><tr><th>condition</th><th>n</th><th>` + template.HTMLEscapeString(f.AccuracyTitle) + `</th><th>95% CI</th><th>mean cost USD</th><th>95% CI</th><th>cost per correct USD</th><th>Pareto</th><th>dominated by</th></tr>`)
		for _, p := range f.Points {
			cpc := "–"
			if p.CostPerCorrect != nil {
				cpc = fmt.Sprintf("%.0f", *p.CostPerCorrect)
			}
			pareto := "yes"
			if !p.Pareto {
				pareto = "no"
			}
			fmt.Fprintf(&b, `<tr><td>%s</td><td>%d</td><td>%.3f</td><td>[%.3f, %.3f]</td><td>%.0f</td><td>[%.0f, %.0f]</td><td>%s</td><td>%s</td><td>%s</td></tr>`,
				template.HTMLEscapeString(p.Condition), p.N, p.Accuracy, p.AccuracyCI.Low, p.AccuracyCI.High, p.Cost, p.CostCI.Low, p.CostCI.High, cpc, pareto,
				template.HTMLEscapeString(strings.Join(p.DominatedBy, ", ")))
		}
		b.WriteString(`</table>`)
	}
	return template.HTML(b.String())
}

// FrontierChart draws one plane: cost on x, accuracy on y (the metric's
// bounds), each point with its two intervals as error bars, the Pareto
// frontier as a step line through the optimal points in cost order, and
// dominated points hollow.
func FrontierChart(f Frontier) template.HTML {
	const W, H, L, B, T, R = 640, 320, 60, 44, 20, 190
	hiCost := 1.0
	for _, p := range f.Points {
		hiCost = math.Max(hiCost, math.Max(p.Cost, p.CostCI.High))
	}
	hiCost = niceCeil(hiCost * 1.05)
	// The accuracy axis spans the metric's bounds, or, where every point
	// lies in the lower half of them, the data with a margin (a readable
	// plane for a weak baseline).
	lo, hi := f.Min, f.Max
	top := lo
	for _, p := range f.Points {
		top = math.Max(top, math.Max(p.Accuracy, p.AccuracyCI.High))
	}
	switch {
	case math.IsInf(hi, 1) || hi <= lo:
		hi = lo + niceCeil(math.Max(top-lo, 1)*1.2)
	case top-lo < (hi-lo)/2:
		hi = lo + niceCeil(math.Max(top-lo, (hi-lo)/10)*1.2)
	}
	px := func(c float64) float64 { return L + c*float64(W-L-R)/hiCost }
	py := func(a float64) float64 { return T + (hi-a)*float64(H-T-B)/(hi-lo) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart frontier" role="img" aria-label="accuracy against cost, %s" viewBox="0 0 %d %d" width="%d" height="%d">`, template.HTMLEscapeString(f.Benchmark), W, H, W, H)
	for i := 0; i <= 4; i++ {
		a := lo + float64(i)*(hi-lo)/4
		c := float64(i) * hiCost / 4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" font-size="11" text-anchor="end">%.2f</text>`, L, W-R, py(a), py(a), L-6, py(a)+4, a)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#eee"/><text x="%.1f" y="%d" font-size="11" text-anchor="middle">%.0f</text>`, px(c), px(c), T, H-B, px(c), H-B+16, c)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="middle">mean cost USD per case</text>`, (L+W-R)/2, H-6)
	fmt.Fprintf(&b, `<text x="14" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 14 %d)">%s</text>`, (T+H-B)/2, (T+H-B)/2, template.HTMLEscapeString(f.AccuracyTitle))
	var opt []FrontierPoint
	for _, p := range f.Points {
		if p.Pareto {
			opt = append(opt, p)
		}
	}
	sort.Slice(opt, func(i, j int) bool { return opt[i].Cost < opt[j].Cost })
	if len(opt) > 0 {
		var pts []string
		for i, p := range opt {
			if i > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.Cost), py(opt[i-1].Accuracy)))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.Cost), py(p.Accuracy)))
		}
		fmt.Fprintf(&b, `<polyline class="pareto" points="%s" fill="none" stroke="#333" stroke-width="1.5" stroke-dasharray="5 3"/>`, strings.Join(pts, " "))
	}
	for n, p := range f.Points {
		col := Palette[n%len(Palette)]
		x, y := px(p.Cost), py(p.Accuracy)
		fmt.Fprintf(&b, `<line class="ci" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, px(p.CostCI.Low), px(p.CostCI.High), y, y, col)
		fmt.Fprintf(&b, `<line class="ci" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, x, x, py(p.AccuracyCI.Low), py(p.AccuracyCI.High), col)
		fill := col
		if !p.Pareto {
			fill = "white"
		}
		fmt.Fprintf(&b, `<circle class="frontier-point" cx="%.1f" cy="%.1f" r="5" fill="%s" stroke="%s" stroke-width="2"><title>%s: %s %.3f, cost %.0f USD (n=%d)</title></circle>`,
			x, y, fill, col, template.HTMLEscapeString(p.Condition), template.HTMLEscapeString(f.AccuracyTitle), p.Accuracy, p.Cost, p.N)
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="5" fill="%s" stroke="%s" stroke-width="2"/><text x="%d" y="%d" font-size="12">%s</text>`, W-R+18, T+n*18+6, fill, col, W-R+30, T+n*18+10, template.HTMLEscapeString(p.Condition))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// niceCeil rounds x up to 1, 2 or 5 times a power of ten.
func niceCeil(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}
