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
// unchanged, one experience card (the episode's intent, what was done and
// the feedback: Evo-Memory's experience tuple, which is MemRL's
// intent–experience pair and Memento's case), and the credits.
func learnUtility(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule, bank Bank, u settings.Utility, rule updateRule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards {
		return out, nil
	}
	cr, err := credits(ctx, bank, u, in, rule)
	if err != nil {
		return Output{}, err
	}
	out.Credits = cr
	out.Cards, out.Skipped = screened(cfg, in, truth, []clinic.Card{experience(in, 0)})
	return out, nil
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
