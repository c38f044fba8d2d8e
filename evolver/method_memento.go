package evolver

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Memento is case-based reasoning with a learned case-selection policy
// (Zhou, Chen, Guo et al. 2025, arXiv 2508.16153, "Memento: Fine-tuning LLM
// Agents without Fine-tuning LLMs"): a case bank of (state, case, reward)
// is written after every task (its memory-based MDP), and the planner reads
// the cases a Q function ranks highest for the present state. Its Q(s, c)
// is state-dependent: a kernel estimate over the episodic memory of the
// states in which the case was used and the rewards that followed,
//
//	Q(s, c) = Σ k(s, s_i)·r_i / Σ k(s, s_i)
//
// which runner.Retrieve computes at retrieval (memory.RankMemento) from each
// card's history; this method writes that history: after each episode, the
// presentation (the state) and the reward on every card it retrieved. With a
// single-step task and a binary reward the paper trains its parametric Q
// toward the reward itself (a classification loss), so the history is the
// training set. The stored utility, used to evict a full bank (B_M), is the
// mean reward of the card's uses: the kernel estimate with a flat kernel
// (clinevo's choice: the paper states no eviction rule). Sections are not
// cited: none could be verified against a numbered copy of the paper.
type Memento struct{ utilityEnv }

// NewMemento is the method on a bank as of the episode before, with the run's
// utility constants, writing the cards of cards (the run's own evolver; nil:
// the built-in one).
func NewMemento(bank Bank, u settings.Utility, cards Evolver) Memento {
	return Memento{utilityEnv{Bank: bank, Utility: u, Cards: cards}}
}

// Evolve writes the episode's cards and credits the cards it retrieved.
func (m Memento) Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	return learnUtility(ctx, cfg, in, truth, rules, m.utilityEnv, m.Update)
}

// Update is the running mean of a card's rewards: q + (r − q)/(n + 1) after n
// earlier updates (the first update is the reward itself).
func (Memento) Update(q, reward float64, updates int) float64 {
	return q + (reward-q)/float64(updates+1)
}
