package evolver

import (
	"context"
	"fmt"
	"slices"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// GEPA is reflective prompt evolution (Agrawal et al. 2025, "GEPA:
// Reflective Prompt Evolution Can Outperform Reinforcement Learning", arXiv
// 2507.19457; section not verified):
// a pool of candidate prompts, each scored on every development case;
// a parent is drawn from the Pareto front (the candidates that are best on
// at least one case and that no other candidate dominates), its traces and
// feedback are reflected on in natural language, and the reflection
// rewrites the prompt into a child that joins the pool. The best candidate
// is then used for evaluation; during the stream it is frozen (EvoClinician
// §4, baseline 7; Frozen).
//
// In clinevo a prompt is a rule book and the development phase is a durable
// workflow before the stream (workflows.OptimizeWorkflow), which calls
// GEPAParent and GEPAChild for every child. With the evolver role the model
// reflects on the parent's graded development episodes and returns the
// rewritten rules. The mechanical reflection applies clinevo's rule edits
// from each graded development episode of the parent, in order (its labels
// and rationales are the natural-language feedback). A child joins the pool
// only if it scores higher than its parent (GEPAAccept); clinevo's
// development sets are small, so the minibatch GEPA tests a child on first
// is the whole development set.
type GEPA struct{ Model Model }

// ParetoFront are the indices of the candidates on the Pareto front over the
// development cases, in pool order: those best (or tied best) on at least
// one case and not dominated by another candidate (at least as good on
// every case and better on one).
func ParetoFront(pool []Candidate) []int {
	var front []int
	for i, c := range pool {
		best := false
		for k := range c.Scores {
			top := true
			for _, o := range pool {
				if k < len(o.Scores) && o.Scores[k] > c.Scores[k] {
					top = false
					break
				}
			}
			best = best || top
		}
		if !best {
			continue
		}
		dominated := false
		for j, o := range pool {
			if j != i && dominates(o, c) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, i)
		}
	}
	return front
}

// GEPAAccept reports whether a child joins the pool: its total score on the
// minibatch (here the development cases) is higher than its parent's (in
// GEPA a mutation that does not improve on its parent is discarded; section
// not verified).
func GEPAAccept(parent, child Candidate) bool {
	return child.Mean()*float64(len(child.Scores)) > parent.Mean()*float64(len(parent.Scores))
}

func dominates(a, b Candidate) bool {
	if len(a.Scores) != len(b.Scores) {
		return false
	}
	better := false
	for k := range a.Scores {
		if a.Scores[k] < b.Scores[k] {
			return false
		}
		better = better || a.Scores[k] > b.Scores[k]
	}
	return better
}

// GEPAParent draws the parent of child slot of generation gen from the
// Pareto front, each front member weighted by the number of cases on which
// it is best (GEPA's Pareto-based candidate selection; section not verified).
func GEPAParent(run string, pool []Candidate, gen, slot int) int {
	front := ParetoFront(pool)
	if len(front) == 0 {
		return Best(pool)
	}
	weights := make([]float64, len(front))
	total := 0.0
	for n, i := range front {
		for k := range pool[i].Scores {
			top := true
			for _, o := range pool {
				if k < len(o.Scores) && o.Scores[k] > pool[i].Scores[k] {
					top = false
				}
			}
			if top {
				weights[n]++
			}
		}
		total += weights[n]
	}
	u := draw(run, gen, slot).Float64() * total
	for n, w := range weights {
		if u < w {
			return front[n]
		}
		u -= w
	}
	return front[len(front)-1]
}

// GEPAChild reflects on the parent's graded development episodes and
// returns the mutated rule book.
func (g GEPA) GEPAChild(ctx context.Context, cfg settings.Evolver, parent Candidate, feedback []Input, gen, slot int) ([]clinic.Rule, error) {
	type episode struct {
		Presentation string
		Transcript   []string
		Graded       []grader.ActionGrade
	}
	req := struct {
		Rules    []string
		Episodes []episode
		Budget   int
	}{Rules: ruleTexts(parent.Rules), Budget: cfg.RuleBudget}
	for _, in := range feedback {
		req.Episodes = append(req.Episodes, episode{in.Opening, transcriptLines(in), in.Grade.Actions})
	}
	prefix := fmt.Sprintf("g%d-c%d", gen, slot)
	if book, ok, err := modelBook(ctx, g.Model, "gepa_reflect", req, [][]clinic.Rule{parent.Rules}, prefix, cfg.RuleBudget, ScreensOf(cfg, feedback)); ok || err != nil {
		return book, err
	}
	rules := append([]clinic.Rule(nil), parent.Rules...)
	for n, in := range feedback {
		var edits []Edit
		for _, d := range proposals(cfg, in, ContextWords(in.Opening)) {
			edits = append(edits, Edit{Op: OpAdd, Text: ruleText(d)})
		}
		in.Episode = n + 1 // development episodes are numbered within the reflection
		rules, _, _ = ApplyEdits(Cite(rules, in, cfg.CiteWindow), edits, in.Episode, cfg, NewScreen(cfg, in.Forbidden, nil))
	}
	for i := range rules {
		if rules[i].Created > 0 {
			rules[i].ID = fmt.Sprintf("%s-%s", prefix, rules[i].ID)
			rules[i].Created = 0
		}
	}
	return rules, nil
}

// Merge is GEPA's merge step (Agrawal et al. 2025, arXiv 2507.19457,
// "system-aware crossover"; section not verified, the definition as the
// authors' reference implementation gives it): two candidates on the Pareto
// front, neither an ancestor of the other, with a common ancestor that
// neither scores below, are combined component by component. A component one
// of them left as the ancestor had it while the other changed it takes the
// change; one both changed differently takes the version of the better
// candidate (by mean development score, the first on a tie); one both agree
// on stays. In clinevo a candidate is a rule book and its components are its
// rules, by rule ID (a child keeps the IDs of the rules it inherits): present
// with a text, or absent. The merged book is played on the development cases
// and joins the pool when its total is at least the better parent's
// (GEPAMergeAccept).
type Merge struct {
	I, J, Ancestor int
	Rules          []clinic.Rule
}

// GEPAMerge finds the next merge among the pool: the first pair of Pareto
// front members (in pool order) with a common ancestor, not already tried
// (tried holds {i, j, ancestor} triples), whose merge differs from both;
// the ancestor is the highest-scoring common one that qualifies (the
// earliest on a tie). The deterministic choice of pair and ancestor is
// clinevo's own (the reference implementation draws them at random). ok is
// false when no merge is possible.
func GEPAMerge(pool []Candidate, tried [][3]int, budget int) (Merge, bool) {
	front := ParetoFront(pool)
	for a := 0; a < len(front); a++ {
		for b := a + 1; b < len(front); b++ {
			i, j := front[a], front[b]
			ai, aj := ancestors(pool, i), ancestors(pool, j)
			if ai[j] || aj[i] {
				continue
			}
			best := -1
			for k := range pool {
				if !ai[k] || !aj[k] || slices.Contains(tried, [3]int{i, j, k}) {
					continue
				}
				if pool[k].Mean() > pool[i].Mean() || pool[k].Mean() > pool[j].Mean() || !desirable(pool[k], pool[i], pool[j]) {
					continue
				}
				if best < 0 || pool[k].Mean() > pool[best].Mean() {
					best = k
				}
			}
			if best < 0 {
				continue
			}
			rules := mergeRules(pool[best], pool[i], pool[j], budget)
			if sameBook(rules, pool[i].Rules) || sameBook(rules, pool[j].Rules) {
				continue
			}
			return Merge{I: i, J: j, Ancestor: best, Rules: rules}, true
		}
	}
	return Merge{}, false
}

// GEPAMergeAccept reports whether a merged candidate joins the pool: its
// total development score is at least that of the better of the two it
// merges (GEPA's merge is kept when it does not do worse than both).
func GEPAMergeAccept(p1, p2, merged Candidate) bool {
	return merged.total() >= max(p1.total(), p2.total())
}

// ancestors are the pool indices candidate i descends from.
func ancestors(pool []Candidate, i int) map[int]bool {
	out := map[int]bool{}
	todo := append([]int(nil), pool[i].Parents...)
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		if p < 0 || p >= len(pool) || out[p] {
			continue
		}
		out[p] = true
		todo = append(todo, pool[p].Parents...)
	}
	return out
}

// components are a candidate's rules by ID: a rule's text, "" when absent.
func components(c Candidate) map[string]clinic.Rule {
	out := map[string]clinic.Rule{}
	for _, r := range c.Rules {
		out[r.ID] = r
	}
	return out
}

// componentIDs are the rule IDs of the candidates, in order of first
// appearance.
func componentIDs(cs ...Candidate) []string {
	var ids []string
	for _, c := range cs {
		for _, r := range c.Rules {
			if !slices.Contains(ids, r.ID) {
				ids = append(ids, r.ID)
			}
		}
	}
	return ids
}

// desirable says whether merging x and y over ancestor a takes something
// from each: some component one of them kept as a had it and the other
// changed.
func desirable(a, x, y Candidate) bool {
	ca, cx, cy := components(a), components(x), components(y)
	for _, id := range componentIDs(a, x, y) {
		sa, sx, sy := ca[id].Text, cx[id].Text, cy[id].Text
		if (sa == sx || sa == sy) && sx != sy {
			return true
		}
	}
	return false
}

// mergeRules is the component-wise merge of x and y over their ancestor a
// (see Merge), at most budget rules.
func mergeRules(a, x, y Candidate, budget int) []clinic.Rule {
	ca, cx, cy := components(a), components(x), components(y)
	var out []clinic.Rule
	for _, id := range componentIDs(a, x, y) {
		sa, sx, sy := ca[id].Text, cx[id].Text, cy[id].Text
		var r clinic.Rule
		switch {
		case (sa == sx || sa == sy) && sx != sy: // one changed it: take the change
			r = cx[id]
			if sa == sx {
				r = cy[id]
			}
		case sx != sy: // both changed it differently: the better candidate's
			r = cx[id]
			if y.Mean() > x.Mean() {
				r = cy[id]
			}
		default: // they agree
			r = cx[id]
		}
		// Two siblings often add the same rule under their own IDs (they
		// reflect on the same parent's episodes): the book holds it once.
		if r.Text != "" && len(out) < budget && !slices.ContainsFunc(out, func(o clinic.Rule) bool { return o.Text == r.Text }) {
			out = append(out, r)
		}
	}
	return out
}

// sameBook says whether two books give the doctor the same rules (the
// doctor sees texts, not IDs).
func sameBook(a, b []clinic.Rule) bool {
	return slices.EqualFunc(a, b, func(x, y clinic.Rule) bool { return x.Text == y.Text })
}
