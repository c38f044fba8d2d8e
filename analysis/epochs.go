package analysis

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// The reducers of a case played n times (an experiment's epochs), as
// inspect_ai defines them (src/inspect_ai/scorer/_reducer/reducer.py:
// mean, pass_at, pass_k). A play is correct when the episode is a strict
// pass (clinic.Scores.Strict: the final diagnosis matched an acceptable
// name), clinevo's choice of inspect's "value ≥ 1": the per-episode success
// every benchmark scores, where S is a graded score with no one threshold.

// PassAt is the chance that at least one of k plays drawn without
// replacement from n plays of which c were correct is correct: Chen et al.
// 2021's unbiased estimator pass@k = 1 − C(n−c, k)/C(n, k) (arXiv
// 2107.03374 §2.1), in its numerically stable product form
// 1 − ∏_{i=n−c+1}^{n} (1 − k/i). ok is false when n < k (undefined).
func PassAt(n, c, k int) (v float64, ok bool) {
	if k < 1 || n < k || c < 0 || c > n {
		return 0, false
	}
	if n-c < k { // every draw of k holds a correct play
		return 1, true
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p, true
}

// PassHat is pass^k, the chance that all k of k plays drawn without
// replacement from n plays of which c were correct are correct:
// C(c, k)/C(n, k), averaged over the tasks (τ-bench, Yao et al. 2024,
// arXiv 2406.12045: proposed in its introduction as its reliability
// metric and defined with its experiments; the section of the formula is
// not pinned, as the paper's text was not at hand; inspect_ai ships it as
// pass_k), as the product ∏_{i=0}^{k−1} (c−i)/(n−i). ok is false when n < k.
func PassHat(n, c, k int) (v float64, ok bool) {
	if k < 1 || n < k || c < 0 || c > n {
		return 0, false
	}
	p := 1.0
	for i := range k {
		p *= float64(c-i) / float64(n-i)
	}
	return max(p, 0), true // c < k: a factor is 0
}

// Reducers are the epoch reducers of one held-out condition played K > 1
// times: each reducer applied to each case's plays, then averaged over the
// cases, with a bootstrap 95% interval over the cases (as every held-out
// mean of the report is resampled by case).
type Reducers struct {
	Name  string `json:"name"`
	K     int    `json:"epochs"`
	Cases int    `json:"cases"`
	// Mean is inspect's mean reducer of S (the mean of each case's plays);
	// MeanStrict that of the strict pass.
	Mean       float64  `json:"mean_s"`
	MeanCI     Interval `json:"mean_s_ci"`
	MeanStrict float64  `json:"mean_strict"`
	// PassAt and PassHat hold pass@k and pass^k for k = 1 to K.
	PassAt  []AtK `json:"pass_at_k"`
	PassHat []AtK `json:"pass_hat_k"`
}

// AtK is a reducer's mean over the cases at one k, with its interval.
type AtK struct {
	K     int      `json:"k"`
	Value float64  `json:"value"`
	CI    Interval `json:"ci"`
}

// casePlays is what the reducers read of one case's plays.
type casePlays struct {
	n, correct int
	s          float64 // the sum of S
}

// groupByCase groups records by case, the cases in the order of their
// first record.
func groupByCase(recs []results.Record) (order []string, groups map[string][]results.Record) {
	groups = map[string][]results.Record{}
	for _, r := range recs {
		if _, ok := groups[r.CaseID]; !ok {
			order = append(order, r.CaseID)
		}
		groups[r.CaseID] = append(groups[r.CaseID], r)
	}
	return order, groups
}

// playsByCase counts each case's plays, their strict passes and their S.
func playsByCase(recs []results.Record) (order []string, plays map[string]*casePlays) {
	order, groups := groupByCase(recs)
	plays = map[string]*casePlays{}
	for id, rs := range groups {
		p := &casePlays{n: len(rs)}
		for _, r := range rs {
			p.s += r.Scores.S
			if r.Scores.Strict {
				p.correct++
			}
		}
		plays[id] = p
	}
	return order, plays
}

// EpochReducers are the reducers of a condition's records played k epochs;
// nil when it played each case once. A case with fewer than k plays (an
// evaluation stopped midway) counts at every k it reaches only.
func EpochReducers(name string, epochs int, recs []results.Record) *Reducers {
	if epochs <= 1 || len(recs) == 0 {
		return nil
	}
	order, plays := playsByCase(recs)
	r := &Reducers{Name: name, K: epochs, Cases: len(order)}
	means, strict := make([]float64, len(order)), make([]float64, len(order))
	for i, id := range order {
		p := plays[id]
		means[i], strict[i] = p.s/float64(p.n), float64(p.correct)/float64(p.n)
	}
	r.Mean, r.MeanCI, r.MeanStrict = Mean(means), BootstrapMean(means, bootstrapResamples, Seed), Mean(strict)
	for k := 1; k <= epochs; k++ {
		r.PassAt = append(r.PassAt, reduceAt(k, order, plays, PassAt))
		r.PassHat = append(r.PassHat, reduceAt(k, order, plays, PassHat))
	}
	return r
}

// reduceAt is estimator f at k averaged over the cases where it is defined.
func reduceAt(k int, order []string, plays map[string]*casePlays, f func(n, c, k int) (float64, bool)) AtK {
	var vs []float64
	for _, id := range order {
		if v, ok := f(plays[id].n, plays[id].correct, k); ok {
			vs = append(vs, v)
		}
	}
	return AtK{K: k, Value: Mean(vs), CI: BootstrapMean(vs, bootstrapResamples, Seed)}
}

// epochs adds the reducers of every held-out condition played more than
// once per case.
func (b *builder) epochs(rep *Report) {
	for _, c := range b.in.Spec.Conditions {
		k := b.in.Spec.EpochsOf(c)
		if c.Kind != contract.KindHeldOut || k <= 1 {
			continue
		}
		if r := EpochReducers(c.Name, k, b.in.Records[b.byName[c.Name].Run]); r != nil {
			rep.Epochs = append(rep.Epochs, *r)
		}
	}
}

// hasEpochs reports whether any record is a play of an evaluation with epochs.
func hasEpochs(recs []results.Record) bool {
	for _, r := range recs {
		if r.Epoch > 0 {
			return true
		}
	}
	return false
}

// pairedMetric is metric of the cases a and b share, in a's order: each
// case's one record, or, where either side played epochs, the mean of its
// plays (a paired comparison pairs by case over the epoch mean, so each
// case is one pair however many times it was played). epochs reports the
// latter: the values of a binary metric are then rates, not 0 or 1.
func pairedMetric(a, b []results.Record, metric string) (p pairedValues) {
	if !hasEpochs(a) && !hasEpochs(b) {
		pa, pb := Pairs(a, b)
		for i := range pa {
			p.cases = append(p.cases, pa[i].CaseID)
			p.x, p.y = append(p.x, metricOf(pa[i], metric)), append(p.y, metricOf(pb[i], metric))
		}
		return p
	}
	p.epochs = true
	order, ma := caseMeans(a, metric)
	_, mb := caseMeans(b, metric)
	for _, id := range order {
		if v, ok := mb[id]; ok {
			p.cases, p.x, p.y = append(p.cases, id), append(p.x, ma[id]), append(p.y, v)
		}
	}
	return p
}

// pairedValues are one metric of two conditions over the cases they share:
// the cases in order, x of the first condition, y of the second.
type pairedValues struct {
	cases  []string
	x, y   []float64
	epochs bool
}

// gains is x − y case by case: how much the first condition gains on the
// second (H3 on H0).
func (p pairedValues) gains() []float64 {
	var d []float64 // nil for no pairs, as the report always wrote it
	for i := range p.x {
		d = append(d, p.x[i]-p.y[i])
	}
	return d
}

// caseMeans is the mean of metric over each case's records, and the cases
// in the order of their first record.
func caseMeans(recs []results.Record, metric string) (order []string, means map[string]float64) {
	order, groups := groupByCase(recs)
	means = map[string]float64{}
	for id, rs := range groups {
		s := 0.0
		for _, r := range rs {
			s += metricOf(r, metric)
		}
		means[id] = s / float64(len(rs))
	}
	return order, means
}

// caseValues is metric of each record, or, where the records are plays of
// epochs, the mean of each case's plays in the order of its first: what a
// bootstrap over the cases resamples.
func caseValues(recs []results.Record, metric string) []float64 {
	if !hasEpochs(recs) {
		xs := make([]float64, len(recs))
		for i, r := range recs {
			xs[i] = metricOf(r, metric)
		}
		return xs
	}
	order, means := caseMeans(recs, metric)
	xs := make([]float64, len(order))
	for i, id := range order {
		xs[i] = means[id]
	}
	return xs
}

// firstEpoch is the records of the first play of each case: what an
// evaluation without epochs plays, and what a test on one binary outcome
// per case (McNemar's) reads.
func firstEpoch(recs []results.Record) []results.Record {
	if !hasEpochs(recs) {
		return recs
	}
	var out []results.Record
	for _, r := range recs {
		if r.Epoch <= 1 {
			out = append(out, r)
		}
	}
	return out
}

// reducerRows are epochs.csv: one row per held-out condition with epochs
// and reducer (mean, pass@k, pass^k) and k.
func reducerRows(rs []Reducers) [][]string {
	rows := [][]string{{"condition", "epochs", "cases", "reducer", "k", "value", "ci_low", "ci_high"}}
	for _, r := range rs {
		head := []string{r.Name, strconv.Itoa(r.K), strconv.Itoa(r.Cases)}
		rows = append(rows, append(slices.Clone(head), "mean_s", "", f4(r.Mean), f4(r.MeanCI.Low), f4(r.MeanCI.High)),
			append(slices.Clone(head), "mean_strict", "", f4(r.MeanStrict), "", ""))
		for _, set := range []struct {
			name string
			at   []AtK
		}{{"pass_at_k", r.PassAt}, {"pass_hat_k", r.PassHat}} {
			for _, a := range set.at {
				rows = append(rows, append(slices.Clone(head), set.name, strconv.Itoa(a.K), f4(a.Value), f4(a.CI.Low), f4(a.CI.High)))
			}
		}
	}
	return rows
}

// writeEpochs prints each condition's reducers on the terminal.
func writeEpochs(w io.Writer, rs []Reducers) {
	for _, r := range rs {
		fmt.Fprintf(w, "epochs %s: %d plays of %d cases; mean S %.3f [%.3f, %.3f], strict %.3f\n", r.Name, r.K, r.Cases, r.Mean, r.MeanCI.Low, r.MeanCI.High, r.MeanStrict)
		fmt.Fprintf(w, "  pass@k %s\n  pass^k %s\n", atKText(r.PassAt), atKText(r.PassHat))
	}
}

func atKText(as []AtK) string {
	var parts []string
	for _, a := range shown(as) {
		parts = append(parts, fmt.Sprintf("k=%d %.3f [%.3f, %.3f]", a.K, a.Value, a.CI.Low, a.CI.High))
	}
	return strings.Join(parts, "  ")
}

// shownK are the k the page and the terminal show of more than maxShownK
// epochs (report.json and epochs.csv hold every k): clinevo's choice, the
// steps pass@k curves are usually read at.
var shownK = []int{1, 2, 3, 5, 10, 20, 50, 100}

const maxShownK = 10

// shown is as, or of more than maxShownK, those at shownK and the last.
func shown(as []AtK) []AtK {
	if len(as) <= maxShownK {
		return as
	}
	var out []AtK
	for i, a := range as {
		if slices.Contains(shownK, a.K) || i == len(as)-1 {
			out = append(out, a)
		}
	}
	return out
}

// epochsHTML is the report's section on epochs: a table per condition of
// the mean and of pass@k and pass^k at every k, with their intervals.
func epochsHTML(rs []Reducers) template.HTML {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<h2 id="epochs">Epochs</h2><p>Each case of these held-out conditions was played several times (epochs), each play its own episode. A play is correct when it is a strict pass (the final diagnosis matched an acceptable name). Per case: the mean of its plays; pass@k = 1 − C(n−c, k)/C(n, k), the chance that at least one of k plays drawn from its n plays (c correct) is correct (Chen et al. 2021, arXiv 2107.03374 §2.1); pass^k = C(c, k)/C(n, k), the chance that all k are (τ-bench, arXiv 2406.12045; inspect_ai's pass_at and pass_k reducers). Each is averaged over the cases, with a bootstrap 95% interval over the cases. Paired comparisons count each case once, by the mean of its plays.</p>`)
	b.WriteString(`<table><tr><th>condition</th><th>epochs</th><th>cases</th><th>mean S [95% CI]</th><th>strict (mean)</th><th>k</th><th>pass@k [95% CI]</th><th>pass^k [95% CI]</th></tr>`)
	for _, r := range rs {
		at, hat := shown(r.PassAt), shown(r.PassHat)
		for i := range at {
			head := `<td></td><td></td><td></td><td></td><td></td>`
			if i == 0 {
				head = fmt.Sprintf(`<td>%s</td><td>%d</td><td>%d</td><td>%.3f [%.3f, %.3f]</td><td>%.3f</td>`, template.HTMLEscapeString(r.Name), r.K, r.Cases,
					r.Mean, r.MeanCI.Low, r.MeanCI.High, r.MeanStrict)
			}
			at, hat := at[i], hat[i]
			fmt.Fprintf(&b, `<tr>%s<td>%d</td><td>%.3f [%.3f, %.3f]</td><td>%.3f [%.3f, %.3f]</td></tr>`, head, at.K, at.Value, at.CI.Low, at.CI.High, hat.Value, hat.CI.Low, hat.CI.High)
		}
	}
	b.WriteString(`</table>`)
	return template.HTML(b.String())
}
