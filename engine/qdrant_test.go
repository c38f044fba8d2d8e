package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/memory/qdrant/qdranttest"
	"github.com/clinevo/clinevo/settings"
)

// TestStreamOnQdrant runs 20 episodes through Temporal with the Qdrant backend
// (the in-process server) and the same 20 with the local backend: the
// episodes are identical, and as-of queries return the same cards, card for card.
func TestStreamOnQdrant(t *testing.T) {
	t.Parallel() // see TestMain
	qs := qdranttest.Start(t)
	qenv := enginetest.StartWith(t, quietLogger{}, func(e *engine.Engine) {
		st, err := qdrant.Open(context.Background(), qdrant.Config{Host: qs.Host, Port: qs.Port}, memory.HashEmbedder{}, true)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		e.Memory.Close() // the embedded bank the engine opened is not used
		e.Memory, e.Activities.Memory = st, st
	})
	spec := contract.StreamSpec{RunID: "qd", Corpus: "builtin:stream", Limit: 20, StageSize: 10,
		Settings: enginetest.Tweak(func(s *settings.Settings) { s.Evolver.MemoryBudget = 15 })}
	runStream(t, qenv, spec)
	enginetest.RequireSameAsReference(t, qenv.Engine.Results, qenv.Engine.Memory, spec)

	lenv := enginetest.Start(t)
	runStream(t, lenv, spec)
	ctx := context.Background()
	evicted := 0
	for n := 1; n <= 20; n++ {
		f := memory.Filter{Runs: []string{"qd"}, AsOf: n}
		a, err := lenv.Engine.Memory.List(ctx, f)
		require.NoError(t, err)
		b, err := qenv.Engine.Memory.List(ctx, f)
		require.NoError(t, err)
		require.Equal(t, ids(a), ids(b), "as of %d", n)
		for _, q := range []string{"chest pain", "fever and cough", "rash"} {
			ha, err := lenv.Engine.Memory.Search(ctx, memory.Query{Text: q, K: 5, Filter: f})
			require.NoError(t, err)
			hb, err := qenv.Engine.Memory.Search(ctx, memory.Query{Text: q, K: 5, Filter: f})
			require.NoError(t, err)
			require.Equal(t, hitIDs(ha), hitIDs(hb), "%q as of %d", q, n)
		}
	}
	all, err := qenv.Engine.Memory.List(ctx, memory.Filter{Runs: []string{"qd"}, IncludeEvicted: true})
	require.NoError(t, err)
	for _, c := range all {
		if c.EvictedEpisode > 0 {
			evicted++
		}
	}
	require.Positive(t, evicted, "B_M 15 forced evictions")
}

func hitIDs(hs []memory.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Card.ID
	}
	return out
}
