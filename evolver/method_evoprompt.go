package evolver

import (
	"context"
	"fmt"
	"sort"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// EvoPrompt is evolutionary prompt optimisation (Guo, Wang, Guo, Li, Song,
// Tan, Liu, Bian, Yang, arXiv 2023,
// "Connecting Large Language Models with Evolutionary Algorithms Yields
// Powerful Prompt Optimizers", the genetic-algorithm instantiation, its
// Algorithm 1 and Figure 1; section not verified):
// a population of prompts is scored on a development set; each generation
// picks parents by roulette-wheel selection on their scores, makes a child
// by crossover then mutation, and keeps the best of parents and children
// as the next population. The best prompt is then frozen for evaluation
// (EvoClinician §4, baseline 6), so during the stream EvoPrompt changes
// nothing (Frozen).
//
// In clinevo a prompt is a rule book; the development phase is its own
// durable workflow before the stream (workflows.OptimizeWorkflow), which
// calls EvoPromptChild for every child and EvoPromptSurvivors after every
// generation. With the evolver role the model performs crossover and
// mutation on the two parents' rules. The mechanical crossover takes rules
// in turn from each parent; the mechanical mutation adds one rule clinevo's
// evolver proposes from a graded development episode of the first parent
// (feedback), or, with none to add, drops the parent's last rule.
type EvoPrompt struct{ Model Model }

// EvoPromptParents draws the two parents of child slot of generation gen
// by roulette-wheel selection (deterministic per run, generation and slot).
func EvoPromptParents(run string, pool []Candidate, gen, slot int) (int, int) {
	rng := draw(run, gen, slot)
	return roulette(pool, rng.Float64()), roulette(pool, rng.Float64())
}

// EvoPromptChild breeds child slot of generation gen from parents p1 and
// p2; feedback are p1's graded development episodes (the mechanical
// mutation's source).
func (e EvoPrompt) EvoPromptChild(ctx context.Context, cfg settings.Evolver, p1, p2 Candidate, feedback []Input, gen, slot int) ([]clinic.Rule, error) {
	prefix := fmt.Sprintf("g%d-c%d", gen, slot)
	req := struct {
		Parent1, Parent2 []string
		Budget           int
	}{ruleTexts(p1.Rules), ruleTexts(p2.Rules), cfg.RuleBudget}
	var reply struct {
		Rules []string `json:"rules"`
	}
	ok, err := ask(ctx, e.Model, "evoprompt_evolve", req, &reply)
	if err != nil {
		return nil, err
	}
	if ok {
		return fromLines(reply.Rules, [][]clinic.Rule{p1.Rules, p2.Rules}, prefix, cfg.RuleBudget, nil), nil
	}
	child := crossover(p1.Rules, p2.Rules, cfg.RuleBudget, cfg.SameAt)
	for _, in := range feedback {
		for _, d := range proposals(cfg, in, ContextWords(in.Opening)) {
			text := ruleText(d)
			if duplicateOf(child, text, cfg.SameAt) < 0 && len(child) < cfg.RuleBudget {
				return append(child, clinic.Rule{ID: prefix + "-m", Text: text}), nil
			}
		}
	}
	if len(child) > 0 {
		child = child[:len(child)-1]
	}
	return child, nil
}

// roulette is roulette-wheel selection (EvoPrompt's GA; section not
// verified): candidate i is drawn with
// probability proportional to its mean score (uniformly when all are 0); u
// is a uniform draw in [0, 1).
func roulette(pool []Candidate, u float64) int {
	total := 0.0
	for _, c := range pool {
		total += c.Mean()
	}
	if total <= 0 {
		return min(int(u*float64(len(pool))), len(pool)-1)
	}
	acc := 0.0
	for i, c := range pool {
		acc += c.Mean() / total
		if u < acc {
			return i
		}
	}
	return len(pool) - 1
}

// EvoPromptSurvivors are the indices of the n best candidates (EvoPrompt's
// GA, section not verified: the next population is the top n of parents and
// children), best first, the earlier among equals.
func EvoPromptSurvivors(pool []Candidate, n int) []int {
	idx := make([]int, len(pool))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pool[idx[a]].Mean() > pool[idx[b]].Mean() })
	if len(idx) > n {
		idx = idx[:n]
	}
	return idx
}
