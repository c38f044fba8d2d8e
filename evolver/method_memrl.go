package evolver

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// MemRL is runtime reinforcement learning on episodic memory (Zhang, Wang,
// Zhou et al. 2026, arXiv 2601.03192, "MemRL: Self-Evolving Agents via
// Runtime Reinforcement Learning on Episodic Memory"): every memory is an
// intent–experience–utility triplet; retrieval recalls candidates by
// similarity, then selects by a blend of similarity and utility (its
// Two-Phase Retrieval: memory.RankMemRL, runner.Retrieve); after the task is
// scored, every memory it used moves toward the reward (its Runtime Utility
// Update, a Monte-Carlo single-step update with γ 0):
//
//	Q ← Q + α·(r − Q)
//
// Sections are named by title, not number: clinevo verified them against the
// authors' text and released code (github.com/MemTensor/MemRL), not a
// numbered copy. α, λ and the initial utility are settings.Utility; the
// memory written is what the run's own evolver distils from the episode
// (learnUtility), and a full bank (B_M) evicts the least useful card
// (LeastUseful).
type MemRL struct{ utilityEnv }

// NewMemRL is the method on a bank as of the episode before, with the run's
// utility constants, writing the cards of cards (the run's own evolver; nil:
// the built-in one).
func NewMemRL(bank Bank, u settings.Utility, cards Evolver) MemRL {
	return MemRL{utilityEnv{Bank: bank, Utility: u, Cards: cards}}
}

// Evolve writes the episode's cards and credits the cards it retrieved.
func (m MemRL) Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	return learnUtility(ctx, cfg, in, truth, rules, m.utilityEnv, m.Update)
}

// Update is MemRL's utility update: Q + α(r − Q).
func (m MemRL) Update(q, reward float64, _ int) float64 { return q + m.Utility.Alpha*(reward-q) }
