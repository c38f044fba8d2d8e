package evolver

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
)

// The methods that learn a utility for every card (MemRL, Memento) share
// what they write and how they credit; they differ in the update rule.

// updateRule is a method's new utility of a card from its utility before
// the episode (q), the episode's reward, and the number of earlier updates.
type updateRule func(q, reward float64, updates int) float64

// Reward is the reward an episode gives the cards it retrieved: its outcome
// score S, within [0, 1], which the learner sees under both feedback modes
// (EvoClinician §4.1: score-only feedback shows S and the cost). MemRL's
// released configurations reward success 1 and failure −1 or 0, Memento's a
// binary success; S keeps partial credit for a partly right diagnosis
// (clinevo's choice).
func Reward(o grader.Outcome) float64 { return o.S }

// Retrieved are the cards the doctor was shown in an episode, each once,
// sorted: every turn's retrieval (clinic.Event.RetrievedCards).
func Retrieved(events []clinic.Event) []string {
	var ids []string
	for _, ev := range events {
		for _, id := range ev.RetrievedCards {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// credits are the updates of the cards an episode retrieved: each card's
// utility before the episode (memory.QBefore, so that a retry computes what
// the first attempt did) moved by rule with the episode's reward, and the
// episode's presentation as the state Memento's kernel compares.
func credits(ctx context.Context, bank Bank, u settings.Utility, in Input, rule updateRule) ([]memory.Credit, error) {
	ids := Retrieved(in.Events)
	if bank == nil || len(ids) == 0 {
		return nil, nil
	}
	cards, err := bank.Cards(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("utility: %w", err)
	}
	r := Reward(in.Outcome)
	out := make([]memory.Credit, 0, len(cards))
	for _, c := range cards {
		before := 0
		for _, h := range c.Utility {
			if h.Episode < in.Episode {
				before++
			}
		}
		q := rule(memory.QBefore(c, in.Episode, u.Initial), r, before)
		out = append(out, memory.Credit{Card: c.ID, Utility: clinic.Utility{Episode: in.Episode, Q: q, Reward: r, State: in.Opening}})
	}
	return out, nil
}

// learnUtility is the episode learned by a utility method: the rule book
// unchanged (neither paper learns a prompt), the cards the run's own evolver
// distils from the episode (clinevo's Diagnose–Grade–Evolve cards of
// evolver.card_kinds, or the model evolver's: the experience MemRL stores in
// an intent–experience–utility triplet and Memento in a case), and the
// credits. Writing clinevo's cards, not a new kind, makes a comparison with
// the clinevo method a comparison of retrieval and eviction alone: the
// cards are the same, only which are shown and which are kept differ
// (clinevo's choice; docs/learning-methods.md).
func learnUtility(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule, u utilityEnv, rule updateRule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards {
		return out, nil
	}
	cr, err := credits(ctx, u.Bank, u.Utility, in, rule)
	if err != nil {
		return Output{}, err
	}
	written, err := u.cards().Evolve(ctx, cfg, in, truth, rules)
	if err != nil {
		return Output{}, fmt.Errorf("utility method: cards: %w", err)
	}
	out.Cards, out.Evict, out.Skipped, out.Credits = written.Cards, written.Evict, written.Skipped, cr
	return out, nil
}

// utilityEnv is what a utility method works with: the bank as of the
// episode before, the utility constants, and the evolver whose cards it
// writes (nil: the built-in one).
type utilityEnv struct {
	Bank    Bank
	Utility settings.Utility
	Cards   Evolver
}

func (u utilityEnv) cards() Evolver {
	if u.Cards == nil {
		return Builtin{}
	}
	return u.Cards
}

// LeastUseful are the cards a full bank evicts under a utility method:
// enough of the live ones to make room for incoming new cards within budget
// (B_M), lowest utility first, then the oldest, then the lowest ID. q is a
// card's utility after the episode.
func LeastUseful(live []clinic.Card, incoming, budget int, q func(clinic.Card) float64) []string {
	over := len(live) + incoming - budget
	if over <= 0 {
		return nil
	}
	ranked := append([]clinic.Card(nil), live...)
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		if qa, qb := q(a), q(b); qa != qb {
			return qa < qb
		}
		if a.CreatedEpisode != b.CreatedEpisode {
			return a.CreatedEpisode < b.CreatedEpisode
		}
		return a.ID < b.ID
	})
	ids := make([]string, 0, over)
	for _, c := range ranked[:min(over, len(ranked))] {
		ids = append(ids, c.ID)
	}
	return ids
}
