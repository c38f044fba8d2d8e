package memory_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/textmatch"
)

func hit(id string, sim float64, q ...float64) memory.Hit {
	c := clinic.Card{CardHint: clinic.CardHint{ID: id}}
	for i, v := range q {
		c.Utility = append(c.Utility, clinic.Utility{Episode: i + 1, Q: v})
	}
	return memory.Hit{Card: c, Score: sim}
}

// TestRankMemRL: similarities 0.9, 0.8, 0.5 standardise (mean 0.7333, sd
// 0.16997) to 0.981, 0.392, −1.373; utilities 0.2, 0.9 and C's initial 0.5
// (mean 0.5333, sd 0.28674) to −1.162, 1.279, −0.116. With λ 0.5 the scores
// are A (0.981−1.162)/2 = −0.091, B (0.392+1.279)/2 = 0.836, C
// (−1.373−0.116)/2 = −0.745: B, A, C. λ 0 is similarity alone (A, B, C), λ 1
// utility alone (B, C, A).
func TestRankMemRL(t *testing.T) {
	hits := []memory.Hit{hit("A", 0.9, 0.5, 0.2), hit("B", 0.8, 0.9), hit("C", 0.5)}
	tests := []struct {
		lambda float64
		k      int
		want   []string
	}{{0.5, 3, []string{"B", "A", "C"}}, {0.5, 2, []string{"B", "A"}}, {0, 3, []string{"A", "B", "C"}}, {1, 3, []string{"B", "C", "A"}}}
	for _, tc := range tests {
		got := memory.RankMemRL(hits, tc.k, tc.lambda, 0.5)
		require.Equal(t, tc.want, hitIDs(got), "λ %v, k %d", tc.lambda, tc.k)
		for _, h := range got {
			require.Contains(t, []float64{0.9, 0.8, 0.5}, h.Score, "the score stays the similarity")
		}
	}
	require.Equal(t, []string{"A", "B"}, hitIDs(memory.RankMemRL([]memory.Hit{hit("B", 0.7, 0.6), hit("A", 0.7, 0.6)}, 2, 0.5, 0.5)), "ties by ID")
}

// TestKernelQ: a card credited in a state the same as the present one
// (Jaccard 1) with reward 1, and in one with no word in common (Jaccard 0)
// with reward 0. τ 0.1: Q = e^10/(e^10 + 1) = 0.9999546; τ 1: e/(e + 1) =
// 0.7310586. A card never credited has the initial utility.
func TestKernelQ(t *testing.T) {
	c := clinic.Card{Utility: []clinic.Utility{{Episode: 2, Reward: 1, State: "crushing chest pain exertion"},
		{Episode: 3, Reward: 0, State: "itchy rash elbows"}}}
	now := "crushing chest pain exertion"
	for _, tc := range []struct{ tau, want float64 }{{0.1, math.Exp(10) / (math.Exp(10) + 1)}, {1, 0.7310586}} {
		require.InDelta(t, tc.want, memory.KernelQ(c, textmatch.Set(now), tc.tau, 0.5), 1e-6, "τ %v", tc.tau)
	}
	require.Equal(t, 0.25, memory.KernelQ(clinic.Card{}, textmatch.Set(now), 0.1, 0.25))
	// Ranked: the card that helped in this state first, though less similar.
	other := memory.Hit{Card: clinic.Card{CardHint: clinic.CardHint{ID: "o"}, Utility: []clinic.Utility{{Episode: 2, Reward: 0.2, State: now}}}, Score: 0.9}
	got := memory.RankMemento([]memory.Hit{other, {Card: c, Score: 0.4}}, 2, now, 0.1, 0.5)
	require.Equal(t, []string{"", "o"}, hitIDs(got))
}

// TestUtilityAsOfAndQBefore: the history cut at an episode, and the value a
// method updates from at episode n whatever a retry already wrote at n.
func TestUtilityAsOfAndQBefore(t *testing.T) {
	c := hit("A", 1, 0.65, 0.455, 0.6185).Card // episodes 1, 2, 3
	require.Equal(t, 0.5, memory.QBefore(c, 1, 0.5))
	require.Equal(t, 0.65, memory.QBefore(c, 2, 0.5))
	require.Equal(t, 0.6185, memory.QBefore(c, 9, 0.5))
	cut := c
	memory.UtilityAsOf(&cut, memory.Filter{AsOf: 2})
	require.Len(t, cut.Utility, 2)
	require.Len(t, c.Utility, 3, "the card read is not changed")
	h, added := memory.Credited(c.Utility, clinic.Utility{Episode: 2, Q: 0.1})
	require.False(t, added)
	require.Equal(t, c.Utility, h)
}
