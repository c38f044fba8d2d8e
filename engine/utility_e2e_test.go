package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/memorytest"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// TestMemRLStreamEndToEnd plays a 20-case MemRL stream on the embedded
// server: the cards' utilities change over the stream, each update is the
// recorded episode's S applied by Q ← Q + 0.3·(S − Q), and every episode
// (its retrievals, ranked by utility as of the episode before, included) and
// card is what the in-process runner produces.
func TestMemRLStreamEndToEnd(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "memrl", Corpus: "builtin:stream", Limit: 20, StageSize: 10,
		Settings: enginetest.Tweak(func(s *settings.Settings) { s.Evolver.Method, s.Evolver.RuleBudget = settings.MethodMemRL, 0 })}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	enginetest.RequireSameAsReference(t, env.Engine.Results, env.Engine.Memory, spec)

	records, err := env.Engine.Results.Records(ctx, spec.RunID)
	require.NoError(t, err)
	s := map[int]float64{}
	for _, r := range records {
		_, tr, err := env.Engine.Results.RecordTrace(ctx, r.EpisodeID)
		require.NoError(t, err)
		s[r.Index] = tr.Scores.S
	}
	cards, err := env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{spec.RunID}, IncludeEvicted: true})
	require.NoError(t, err)
	require.Positive(t, memorytest.RequireMemRLHistories(t, cards, s, 0.3, 0.5), "cards were credited over the stream")
}
