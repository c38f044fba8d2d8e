package evolver

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// Candidate is a prompt optimiser's candidate rule book (EvoPrompt, GEPA)
// with its score S on every development case, in case order, and the
// development run that played it.
type Candidate struct {
	Rules  []clinic.Rule `json:"rules"`
	Scores []float64     `json:"scores"`
	Run    string        `json:"run"`
	// Parents are the pool indices of the candidates it was bred from
	// (GEPA: the reflected parent, or the two merged ones); none for the seed.
	Parents []int `json:"parents,omitempty"`
}

// Mean is the candidate's mean development score, 0 before it is scored.
func (c Candidate) Mean() float64 {
	if len(c.Scores) == 0 {
		return 0
	}
	return c.total() / float64(len(c.Scores))
}

// total is the sum of the candidate's development scores.
func (c Candidate) total() float64 {
	t := 0.0
	for _, s := range c.Scores {
		t += s
	}
	return t
}

// Best is the index of the candidate with the highest mean development
// score, the earliest among equals: what the stream freezes.
func Best(pool []Candidate) int {
	best := 0
	for i, c := range pool {
		if c.Mean() > pool[best].Mean() {
			best = i
		}
	}
	return best
}

// draw is a deterministic source for a breeding step: the same run,
// generation and slot draw the same numbers, on every worker and retry.
func draw(run string, gen, slot int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(run))
	return rand.New(rand.NewPCG(h.Sum64(), uint64(gen)<<32|uint64(slot)))
}

// crossover is the mechanical crossover of two rule books: rules taken in
// turn from each parent, a duplicate of one already taken skipped, at most
// budget.
func crossover(a, b []clinic.Rule, budget int, at float64) []clinic.Rule {
	var out []clinic.Rule
	for i := 0; i < max(len(a), len(b)) && len(out) < budget; i++ {
		for _, p := range [][]clinic.Rule{a, b} {
			if i < len(p) && len(out) < budget && duplicateOf(out, p[i].Text, at) < 0 {
				out = append(out, p[i])
			}
		}
	}
	return out
}

// modelBook asks the model for a whole rule book (a {"rules": [...]}
// reply) and makes it one (fromLines); false when there is no model or its
// reply stayed unusable, for the caller's mechanical form.
func modelBook(ctx context.Context, m Model, task string, req any, parents [][]clinic.Rule, prefix string, budget int, screen Screens) ([]clinic.Rule, bool, error) {
	var reply struct {
		Rules []string `json:"rules"`
	}
	ok, err := ask(ctx, m, task, req, &reply)
	if err != nil || !ok {
		return nil, false, err
	}
	return fromLines(reply.Rules, parents, prefix, budget, screen), true, nil
}

// fromLines are a model's rule lines as a rule book: a line a parent held
// keeps its rule, a new one is a rule created at episode 0 (the
// development phase precedes the stream), at most budget; a line the screen
// finds leaking is dropped.
func fromLines(lines []string, parents [][]clinic.Rule, prefix string, budget int, screen Screens) []clinic.Rule {
	var out []clinic.Rule
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || len(out) == budget || screen.Leaks(l) != "" {
			continue
		}
		r := clinic.Rule{ID: prefix + "-" + strconv.Itoa(i+1), Text: l}
		for _, p := range parents {
			if j := duplicateOf(p, l, 1); j >= 0 {
				r = p[j]
			}
		}
		if !containsRule(out, r.ID) {
			out = append(out, r)
		}
	}
	return out
}
