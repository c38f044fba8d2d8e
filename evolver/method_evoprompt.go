package evolver

import (
	"context"
	"fmt"
	"sort"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// EvoPrompt is evolutionary prompt optimisation (Guo, Wang, Guo, Li, Song,
// Tan, Liu, Bian, Yang, ICLR 2024, "Connecting Large Language Models with
// Evolutionary Algorithms Yields Powerful Prompt Optimizers", arXiv
// 2309.08532; section numbers not verified): a population of prompts is
// scored on a development set and evolved by one of two algorithms
// (evolver.dev.algorithm):
//
//   - ga, the genetic algorithm (its Algorithm 1 and Figure 1): each
//     generation picks parents by roulette-wheel selection on their scores,
//     makes a child by crossover then mutation, and keeps the best of
//     parents and children as the next population;
//   - de, differential evolution (its Figure 2): for every member p_i of the
//     population, two other members p_r1, p_r2 are drawn; the parts in which
//     they differ are mutated, combined with the best member p_best, and the
//     result crossed over with p_i; the child replaces p_i when it scores
//     higher.
//
// The initial population is several prompts, as the paper seeds it (the
// manual prompt and prompts a model writes beside it): the stream's rule
// book and Population-1 books bred from it (EvoPromptInitial). The best
// prompt is then frozen for evaluation (EvoClinician §4, baseline 6), so
// during the stream EvoPrompt changes nothing (Frozen).
//
// In clinevo a prompt is a rule book; the development phase is its own
// durable workflow before the stream (workflows.OptimizeWorkflow), which
// calls the Breed activity for every initial book and child. With the
// evolver role the model performs each operator on the books' rules. The
// mechanical forms (the built-in roles) make every new rule from clinevo's
// own rule proposals on graded development episodes (proposals): the
// mechanical crossover takes rules in turn from each parent; the mechanical
// mutation adds one rule clinevo's evolver proposes from a graded
// development episode of the first parent (feedback), or, with none to add,
// drops the parent's last rule. So an offline comparison is of clinevo's
// proposals searched by EvoPrompt's selection, not of the paper's operators.
// Every rule a child gets, the model's included, passes the leak screen of
// the development episodes it was bred from (ScreensOf).
type EvoPrompt struct{ Model Model }

// EvoPromptParents draws the two parents of child slot of generation gen
// by roulette-wheel selection (deterministic per run, generation and slot).
func EvoPromptParents(run string, pool []Candidate, gen, slot int) (int, int) {
	rng := draw(run, gen, slot)
	return roulette(pool, rng.Float64()), roulette(pool, rng.Float64())
}

// EvoPromptChild breeds child slot of generation gen from parents p1 and
// p2 (the GA); feedback are p1's graded development episodes (the
// mechanical mutation's source and the leak screen's input).
func (e EvoPrompt) EvoPromptChild(ctx context.Context, cfg settings.Evolver, p1, p2 Candidate, feedback []Input, gen, slot int) ([]clinic.Rule, error) {
	prefix := fmt.Sprintf("g%d-c%d", gen, slot)
	screen := ScreensOf(cfg, feedback)
	req := struct {
		Parent1, Parent2 []string
		Budget           int
	}{ruleTexts(p1.Rules), ruleTexts(p2.Rules), cfg.RuleBudget}
	if book, ok, err := modelBook(ctx, e.Model, "evoprompt_evolve", req, [][]clinic.Rule{p1.Rules, p2.Rules}, prefix, cfg.RuleBudget, screen); ok || err != nil {
		return book, err
	}
	return mutate(cfg, crossover(p1.Rules, p2.Rules, cfg.RuleBudget, cfg.SameAt), feedback, screen, prefix+"-m", 0), nil
}

// mutate is the mechanical mutation: the book with the nth (from 0) new
// rule proposed from the feedback (proposed), or, when the book is full or
// none is left, the book without its last rule.
func mutate(cfg settings.Evolver, book []clinic.Rule, feedback []Input, screen Screens, id string, nth int) []clinic.Rule {
	if len(book) < cfg.RuleBudget {
		if text, ok := proposed(cfg, book, feedback, screen, nth); ok {
			return append(book, clinic.Rule{ID: id, Text: text})
		}
	}
	if len(book) > 0 {
		book = book[:len(book)-1]
	}
	return book
}

// proposed is the nth (from 0) rule clinevo's evolver proposes from the
// feedback episodes that the book does not hold and the screen lets
// through; false when there are not that many.
func proposed(cfg settings.Evolver, book []clinic.Rule, feedback []Input, screen Screens, nth int) (string, bool) {
	for _, in := range feedback {
		for _, d := range proposals(cfg, in, ContextWords(in.Opening)) {
			text := ruleText(d)
			if duplicateOf(book, text, cfg.SameAt) >= 0 || screen.Leaks(text) != "" {
				continue
			}
			if nth == 0 {
				return text, true
			}
			nth--
		}
	}
	return "", false
}

// EvoPromptInitial is initial book slot (1 to Population-1) beside the
// seed, which is slot 0 (EvoPrompt's initial population: the manual prompt
// and prompts written beside it). The model writes a variant of the seed
// from its graded development episodes; mechanically the seed gets the
// slot-th rule clinevo proposes from them, so every initial book differs.
func (e EvoPrompt) EvoPromptInitial(ctx context.Context, cfg settings.Evolver, seed Candidate, feedback []Input, slot int) ([]clinic.Rule, error) {
	prefix := fmt.Sprintf("g0-c%d", slot)
	screen := ScreensOf(cfg, feedback)
	req := struct {
		Seed     []string
		Episodes [][]string
		Variant  int
		Budget   int
	}{Seed: ruleTexts(seed.Rules), Variant: slot, Budget: cfg.RuleBudget}
	for _, in := range feedback {
		req.Episodes = append(req.Episodes, append([]string{in.Opening}, transcriptLines(in)...))
	}
	if book, ok, err := modelBook(ctx, e.Model, "evoprompt_init", req, [][]clinic.Rule{seed.Rules}, prefix, cfg.RuleBudget, screen); ok || err != nil {
		return book, err
	}
	return mutate(cfg, append([]clinic.Rule(nil), seed.Rules...), feedback, screen, prefix+"-m", slot-1), nil
}

// EvoPromptDonors draws the two donors of member slot for generation gen
// of differential evolution: two distinct members other than slot
// (deterministic per run, generation and slot). Settings refuse de with a
// population under three; a smaller pool repeats what it has (the member
// itself when it is alone).
func EvoPromptDonors(run string, pool []Candidate, gen, slot int) (int, int) {
	var others []int
	for i := range pool {
		if i != slot {
			others = append(others, i)
		}
	}
	switch len(others) {
	case 0:
		return slot, slot
	case 1:
		return others[0], others[0]
	}
	rng := draw(run, gen, slot)
	a := rng.IntN(len(others))
	b := rng.IntN(len(others) - 1)
	if b >= a {
		b++
	}
	return others[a], others[b]
}

// EvoPromptDE breeds the child of member base for generation gen of
// differential evolution from the donors r1, r2 and the best member;
// feedback are base's graded development episodes. With the model it is
// the paper's four steps in one request; mechanically: (1) the rules one
// donor holds and the other does not are the different parts, (2) mutated
// by adding one rule clinevo proposes from the feedback (when one is new),
// (3) combined with best's rules, (4) crossed over with base's (rules in
// turn, within B_P).
func (e EvoPrompt) EvoPromptDE(ctx context.Context, cfg settings.Evolver, base, best, r1, r2 Candidate, feedback []Input, gen, slot int) ([]clinic.Rule, error) {
	prefix := fmt.Sprintf("g%d-c%d", gen, slot)
	screen := ScreensOf(cfg, feedback)
	req := struct {
		Base, Best, Donor1, Donor2 []string
		Budget                     int
	}{ruleTexts(base.Rules), ruleTexts(best.Rules), ruleTexts(r1.Rules), ruleTexts(r2.Rules), cfg.RuleBudget}
	parents := [][]clinic.Rule{base.Rules, best.Rules, r1.Rules, r2.Rules}
	if book, ok, err := modelBook(ctx, e.Model, "evoprompt_de", req, parents, prefix, cfg.RuleBudget, screen); ok || err != nil {
		return book, err
	}
	diff := append(differing(r1.Rules, r2.Rules, cfg.SameAt), differing(r2.Rules, r1.Rules, cfg.SameAt)...)
	if text, ok := proposed(cfg, append(append([]clinic.Rule(nil), best.Rules...), diff...), feedback, screen, 0); ok {
		diff = append(diff, clinic.Rule{ID: prefix + "-m", Text: text})
	}
	mutant := append([]clinic.Rule(nil), best.Rules...)
	for _, r := range diff {
		if duplicateOf(mutant, r.Text, cfg.SameAt) < 0 {
			mutant = append(mutant, r)
		}
	}
	return crossover(mutant, base.Rules, cfg.RuleBudget, cfg.SameAt), nil
}

// differing are the rules of a that b does not hold (the same at `at`).
func differing(a, b []clinic.Rule, at float64) []clinic.Rule {
	var out []clinic.Rule
	for _, r := range a {
		if duplicateOf(b, r.Text, at) < 0 {
			out = append(out, r)
		}
	}
	return out
}

// EvoPromptReplace reports whether the DE child replaces the member it was
// bred from: when its mean development score is higher (the member stays on
// a tie).
func EvoPromptReplace(member, child Candidate) bool { return child.Mean() > member.Mean() }

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
