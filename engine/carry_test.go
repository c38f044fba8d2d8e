package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
)

// TestCarryRunKeepsTheEarlierRunsView runs R0, then a carry run R1 built the
// way `stream start --memory carry --carry-from R0` builds it, with a memory
// budget small enough that R1 evicts R0's cards. R1 continues R0's episode
// numbering and rule book, and R0's memory "as of" each of its episodes is the
// same before and after R1.
func TestCarryRunKeepsTheEarlierRunsView(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	set := enginetest.Tweak(func(s *settings.Settings) { s.Evolver.MemoryBudget = 6 })
	r0 := contract.StreamSpec{RunID: "r0", Corpus: "builtin:stream", Limit: 8, StageSize: 4, Settings: set}
	_, err := engine.CarryFrom(ctx, env.Engine.Results, contract.StreamSpec{RunID: "r1"}, "r0")
	require.ErrorContains(t, err, "carry from r0: the run has not finished")
	res0 := runStream(t, env, r0)

	asOf := func() map[int][]string {
		out := map[int][]string{}
		for n := 1; n <= res0.LastEpisode; n++ {
			cards, err := env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{"r0"}, AsOf: n})
			require.NoError(t, err)
			out[n] = ids(cards)
		}
		return out
	}
	before := asOf()

	r1, err := engine.CarryFrom(ctx, env.Engine.Results, contract.StreamSpec{RunID: "r1", Corpus: "builtin:stream", Limit: 8, StageSize: 4, Settings: set}, "r0")
	require.NoError(t, err)
	require.Equal(t, contract.MemoryCarry, r1.Memory)
	require.Equal(t, []string{"r0"}, r1.CarryFrom)
	require.Equal(t, res0.LastEpisode, r1.FirstEpisode)
	require.Equal(t, res0.RuleBook, r1.RuleBook)
	require.Equal(t, 2, r1.Pass)
	res1 := runStream(t, env, r1)
	require.Equal(t, res0.LastEpisode+8, res1.LastEpisode)

	evicted, err := env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{"r0"}, IncludeEvicted: true})
	require.NoError(t, err)
	byR1 := 0
	for _, c := range evicted {
		if c.EvictedEpisode > res0.LastEpisode {
			byR1++
		}
	}
	require.Positive(t, byR1, "R1 evicted some of R0's cards")
	require.Equal(t, before, asOf(), "R0's view as of its own episodes is unchanged")
	recs, err := env.Engine.Results.Records(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, res0.LastEpisode+1, recs[0].Number, "R1 numbers its episodes after R0's")
}
