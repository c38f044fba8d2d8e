package evolver

import (
	"context"
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// GEPA is reflective prompt evolution (Agrawal et al. 2025, "GEPA:
// Reflective Prompt Evolution Can Outperform Reinforcement Learning", §3):
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
// minibatch (here the development cases) is higher than its parent's (GEPA
// §3: a mutation that does not improve on its parent is discarded).
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
// it is best (GEPA §3, candidate selection).
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
	var reply struct {
		Rules []string `json:"rules"`
	}
	prefix := fmt.Sprintf("g%d-c%d", gen, slot)
	ok, err := ask(ctx, g.Model, "gepa_reflect", req, &reply)
	if err != nil {
		return nil, err
	}
	if ok {
		return fromLines(reply.Rules, [][]clinic.Rule{parent.Rules}, prefix, cfg.RuleBudget, nil), nil
	}
	rules := append([]clinic.Rule(nil), parent.Rules...)
	for n, in := range feedback {
		var edits []Edit
		for _, d := range proposals(cfg, in, ContextWords(in.Opening)) {
			edits = append(edits, Edit{Op: OpAdd, Text: ruleText(d)})
		}
		in.Episode = n + 1 // development episodes are numbered within the reflection
		rules, _, _ = ApplyEdits(Cite(rules, in, cfg.CiteWindow), edits, in.Episode, cfg, nil)
	}
	for i := range rules {
		if rules[i].Created > 0 {
			rules[i].ID = fmt.Sprintf("%s-%s", prefix, rules[i].ID)
			rules[i].Created = 0
		}
	}
	return rules, nil
}
