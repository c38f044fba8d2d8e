package runner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/memorytest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// utilityBank holds three cards of the same text (equal similarity to any
// query, so only utility orders them) and credits:
// A 0.1 at episode 2 (state "night cough", reward 0);
// B 0.6 at 2 (state "night cough", reward 0) and 0.0 at 6 (state "rash", reward 1);
// C none.
func utilityBank(t *testing.T, d runner.Deps) {
	ctx := context.Background()
	var cards []clinic.Card
	for _, id := range []string{"A", "B", "C"} {
		cards = append(cards, clinic.Card{CardHint: clinic.CardHint{ID: id, Kind: clinic.CardExperience, Text: "dry cough at night"},
			SearchText: "dry cough at night", Bank: "experience", Run: "r", Pass: 1, CreatedEpisode: 1})
	}
	require.NoError(t, d.Memory.Upsert(ctx, cards))
	cr := func(id string, n int, q, r float64, state string) memory.Credit {
		return memory.Credit{Card: id, Utility: clinic.Utility{Episode: n, Q: q, Reward: r, State: state}}
	}
	require.NoError(t, d.Memory.Credit(ctx, []memory.Credit{cr("A", 2, 0.1, 0, "night cough"), cr("B", 2, 0.6, 0, "night cough"), cr("B", 6, 0, 1, "rash")}))
}

// TestRetrieveRanksByUtilityAsOf: with equal similarities MemRL's order is
// the utility's: as of episode 5 (B 0.6, C 0.5, A 0.1) B, C, A; as of 6 (B
// 0.0) C, A, B; similarity alone breaks the tie by ID: A, B, C. Memento's
// kernel estimate for the state "night cough" (τ 0.1): A has one use in
// that state with reward 0, so 0; B one in that state (reward 0, weight e^10)
// and one in another (reward 1, weight e^0), so 1/(e^10 + 1) ≈ 0.00005; C
// the initial 0.5: C, B, A. The doctor sees the similarity, not the utility.
func TestRetrieveRanksByUtilityAsOf(t *testing.T) {
	ctx := context.Background()
	d := deps(t, true)
	utilityBank(t, d)
	view := clinic.DoctorView{OpeningComplaint: "night cough"}
	for _, c := range []struct {
		retrieval string
		number    int
		want      []string
	}{{settings.MethodMemRL, 6, []string{"B", "C", "A"}}, {settings.MethodMemRL, 7, []string{"C", "A", "B"}},
		{"similarity", 7, []string{"A", "B", "C"}}, {settings.MethodMemento, 7, []string{"C", "B", "A"}}} {
		s := settings.Memory{K: 3, Retrieval: c.retrieval, Utility: settings.DefaultUtility}
		got, err := runner.Retrieve(ctx, d.Memory, view, s, runner.Meta{RunID: "r", Number: c.number, MemoryRuns: []string{"r"}, Frozen: true})
		require.NoError(t, err)
		var ids []string
		for _, h := range got {
			ids = append(ids, h.ID)
			require.InDelta(t, got[0].Similarity, h.Similarity, 1e-9, "the hint holds the similarity")
		}
		require.Equal(t, c.want, ids, "%s as of episode %d", c.retrieval, c.number-1)
	}
}

// TestApplyCreditsAndEvictsTheLeastUseful: at episode 7, with B_M 3 and
// three live cards, a new card makes room by evicting the least useful,
// counting the episode's own credits: A 0.1, B 0.0, C 0.05 (credited at 7,
// down from the initial 0.5), so B goes; a retry changes nothing.
func TestApplyCreditsAndEvictsTheLeastUseful(t *testing.T) {
	ctx := context.Background()
	d := deps(t, true)
	d.Settings.Evolver.Method, d.Settings.Evolver.MemoryBudget = settings.MethodMemRL, 3
	utilityBank(t, d)
	card := clinic.Card{CardHint: clinic.CardHint{ID: "D", Kind: clinic.CardExperience, Text: "wheeze"}, SearchText: "wheeze", Bank: "experience", Run: "r", Pass: 1, CreatedEpisode: 7}
	out := evolver.Output{Cards: []clinic.Card{card}, Credits: []memory.Credit{{Card: "C", Utility: clinic.Utility{Episode: 7, Q: 0.05, Reward: 0}}}}
	m := runner.Meta{RunID: "r", Number: 7, Pass: 1, MemoryRuns: []string{"r"}}
	for range 2 {
		l, err := runner.Apply(ctx, d, out, m, grader.ProcessGrade{})
		require.NoError(t, err)
		require.Equal(t, []string{"B"}, l.Evicted)
	}
	c, err := d.Memory.Get(ctx, "C")
	require.NoError(t, err)
	require.Len(t, c.Utility, 1)
	require.Equal(t, 0.05, c.Utility[0].Q)
	b, err := d.Memory.Get(ctx, "B")
	require.NoError(t, err)
	require.Equal(t, 7, b.EvictedEpisode)
}

// TestMemRLStreamLearnsUtilities plays 40 cases with MemRL: cards are
// credited, every update follows Q ← Q + 0.3·(r − Q) from the one before
// (from 0.5), with r the episode's S, and a second play of the same stream
// leaves the same utilities.
func TestMemRLStreamLearnsUtilities(t *testing.T) {
	ctx := context.Background()
	cases := synth.Generate(7)["stream"][:40]
	var banks [2][]clinic.Card
	for i := range banks {
		d := deps(t, true)
		d.Settings.Evolver.Method, d.Settings.Evolver.RuleBudget = settings.MethodMemRL, 0
		traces := stream(t, d, cases, "r")
		s := map[int]float64{}
		for n, tr := range traces {
			s[n+1] = tr.Scores.S
		}
		cards, err := d.Memory.List(ctx, memory.Filter{IncludeEvicted: true})
		require.NoError(t, err)
		require.Greater(t, memorytest.RequireMemRLHistories(t, cards, s, 0.3, 0.5), 40, "the cards retrieved in 40 episodes were credited")
		banks[i] = cards
	}
	require.Equal(t, fmt.Sprint(banks[0]), fmt.Sprint(banks[1]), "the same stream leaves the same utilities")
}
