package evolver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
)

// credit applies an output's credits to the bank, first write per card and
// episode winning, as memory.Store.Credit does.
func (b *bank) credit(out evolver.Output) {
	for _, cr := range out.Credits {
		for i := range b.cards {
			if b.cards[i].ID == cr.Card {
				b.cards[i].Utility, _ = memory.Credited(b.cards[i].Utility, cr.Utility)
			}
		}
	}
}

// retrieving is episode n having been shown the cards ids (on its first turn).
func retrieving(in evolver.Input, ids ...string) evolver.Input {
	in.Events = append([]clinic.Event(nil), in.Events...)
	in.Events[0].RetrievedCards = ids
	return in
}

// TestUtilityMethodsCreditWhatWasRetrieved plays three episodes: the first
// writes clinevo's cards, A the first of them (no card retrieved, no credit); the second retrieves A and
// fails (S 0.3); the third retrieves A and passes (S 0.9). MemRL (α 0.3,
// initial 0.5): 0.5 + 0.3·(0.3 − 0.5) = 0.44, then 0.44 + 0.3·(0.9 − 0.44) =
// 0.578. Memento's stored utility is the mean reward: 0.3, then
// 0.3 + (0.9 − 0.3)/2 = 0.6. A retry of the third episode, after its credit
// was written, proposes the same value.
func TestUtilityMethodsCreditWhatWasRetrieved(t *testing.T) {
	u := settings.DefaultUtility
	for _, tc := range []struct {
		name string
		make func(evolver.Bank) evolver.Evolver
		want []float64
	}{
		{"memrl", func(b evolver.Bank) evolver.Evolver { return evolver.NewMemRL(b, u, nil) }, []float64{0.44, 0.578}},
		{"memento", func(b evolver.Bank) evolver.Evolver { return evolver.NewMemento(b, u, nil) }, []float64{0.3, 0.6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			b := &bank{}
			m := tc.make(b)
			first := episode(1, "c1", "stable angina", true, grader.HighYield, grader.HighYield, grader.HighYield)
			rules := []clinic.Rule{{ID: "r1", Text: "ASK triggers"}}
			out, err := m.Evolve(ctx, cfg(), first, nil, rules)
			require.NoError(t, err)
			builtin, err := evolver.Builtin{}.Evolve(ctx, cfg(), first, nil, rules)
			require.NoError(t, err)
			require.NotEmpty(t, out.Cards)
			require.Equal(t, builtin.Cards, out.Cards, "the cards clinevo's own evolver writes")
			require.Equal(t, rules, out.Rules, "the rule book is not learned")
			require.Empty(t, out.Credits, "nothing was retrieved")
			b.apply(out, 1)
			a := out.Cards[0].ID
			for i, n := range []int{2, 3} {
				in := retrieving(episode(n, "c"+string(rune('1'+n)), "stable angina", n == 3), a, "an-evicted-card")
				out, err = m.Evolve(ctx, cfg(), in, nil, nil)
				require.NoError(t, err)
				require.Len(t, out.Credits, 1, "the unknown card is not credited")
				cr := out.Credits[0]
				require.Equal(t, a, cr.Card)
				require.Equal(t, n, cr.Episode)
				require.InDelta(t, tc.want[i], cr.Q, 1e-12, "episode %d", n)
				require.Equal(t, in.Outcome.S, cr.Reward)
				require.Equal(t, chest, cr.State)
				b.credit(out)
				b.apply(out, n)
			}
			retry, err := m.Evolve(ctx, cfg(), retrieving(episode(3, "c4", "stable angina", true), a), nil, nil)
			require.NoError(t, err)
			require.Equal(t, out.Credits, retry.Credits, "a retry proposes what the first attempt did")
		})
	}
}

// TestLeastUseful: four live cards, one incoming, B_M 3: two must go. The
// utilities are a 0.2 (episode 1), b 0.8, c none (initial 0.5), d 0.2
// (episode 2): a and d, the oldest first among equals.
func TestLeastUseful(t *testing.T) {
	q := map[string]float64{"a": 0.2, "b": 0.8, "c": 0.5, "d": 0.2}
	live := []clinic.Card{{CardHint: clinic.CardHint{ID: "d"}, CreatedEpisode: 2}, {CardHint: clinic.CardHint{ID: "c"}, CreatedEpisode: 1},
		{CardHint: clinic.CardHint{ID: "b"}, CreatedEpisode: 1}, {CardHint: clinic.CardHint{ID: "a"}, CreatedEpisode: 1}}
	of := func(c clinic.Card) float64 { return q[c.ID] }
	require.Equal(t, []string{"a", "d"}, evolver.LeastUseful(live, 1, 3, of))
	require.Empty(t, evolver.LeastUseful(live, 1, 5, of), "room for the new card")
}
