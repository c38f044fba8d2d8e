package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
)

// TestMethodsAskTheEvolverRole runs mem0 and gepa with the evolver role on
// a scripted endpoint: the methods' model steps go through the run's
// evolver client, their replies become the memories and the development
// child, and their model use is accounted per episode (mem0) and under the
// run (gepa's development phase) and reaches the report.
func TestMethodsAskTheEvolverRole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs streams on the embedded server")
	}
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	srv.Script = func(_ int, r llmtest.Request) *llmtest.Reply {
		switch {
		case strings.Contains(r.System, "extract the few facts"):
			return &llmtest.Reply{Status: 200, Content: `{"facts":[{"text":"a model-written memory of this presentation","diagnosis":"tension headache"}]}`}
		case strings.Contains(r.System, "Compare one new fact"):
			return &llmtest.Reply{Status: 200, Content: `{"op":"NOOP"}`}
		case strings.Contains(r.System, "by reflection"):
			return &llmtest.Reply{Status: 200, Content: `{"rules":["ASK onset WHEN headache"]}`}
		}
		return nil
	}
	env := enginetest.Start(t)
	ctx := context.Background()

	s := enginetest.ModelSettings(srv, "", "evolver")
	s.Episode.MDT = settings.MDTOff
	s.Evolver.Method, s.Evolver.RuleBudget = settings.MethodMem0, 0
	runStream(t, env, contract.StreamSpec{RunID: "m-mem0", Corpus: "builtin:stream", Limit: 3, StageSize: 3, Memory: contract.MemoryEmpty, Settings: s})
	recs, err := env.Engine.Results.Records(ctx, "m-mem0")
	require.NoError(t, err)
	require.Len(t, recs, 3)
	for _, r := range recs {
		require.Positive(t, r.Usage["evolver"].Calls, "episode %s: the evolver role was asked", r.EpisodeID)
	}
	require.Positive(t, analysis.Overall(recs).Tokens["evolver"], "the report's mean evolver tokens per episode")
	cards, err := env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{"m-mem0"}, Kinds: []clinic.CardKind{clinic.CardMemory}, IncludeEvicted: true})
	require.NoError(t, err)
	require.NotEmpty(t, cards)
	for _, c := range cards {
		require.Equal(t, "a model-written memory of this presentation", c.Text)
	}

	g := enginetest.ModelSettings(srv, "", "evolver")
	g.Episode.MDT = settings.MDTOff
	g.Evolver.Method = settings.MethodGEPA
	g.Evolver.Dev = settings.Dev{Corpus: "builtin:heldout", Cases: 2, Generations: 1, Population: 1}
	runStream(t, env, contract.StreamSpec{RunID: "m-gepa", Corpus: "builtin:stream", Limit: 2, StageSize: 2, Memory: contract.MemoryDisabled, Settings: g})
	var child []clinic.Rule
	require.NoError(t, env.Engine.Results.Proposal(ctx, contract.DevRunID("m-gepa", 1, 0)+"/breed", &child))
	require.Len(t, child, 1)
	require.Equal(t, "ASK onset WHEN headache", child[0].Text, "the reflection's rule book")
	use, err := env.Engine.Results.RunUsage(ctx, "m-gepa")
	require.NoError(t, err)
	require.Equal(t, 1, use["evolver"].Calls, "one reflection, accounted under the run")
}
