package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
)

// TestMethodsExperimentRunsOffline runs experiments/methods.yaml shortened
// (three cases per condition, a development phase of two cases, one
// generation of two children) with the built-in roles: every learning method
// on every benchmark runs end to end, each leaves the state its mechanism
// keeps, the prompt optimisers play their development phase before the
// stream, and the report pairs every method with its benchmark's static
// prompt and splits time into diagnosing and updating.
func TestMethodsExperimentRunsOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 62 conditions on the embedded server")
	}
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	// One ordering here: orderings have their own end-to-end test
	// (TestOrderingsEndToEnd), and three would triple this one's time.
	one := bytes.Replace(experiments.Methods, []byte("\norderings: 3\n"), []byte("\n"), 1)
	require.NotEqual(t, experiments.Methods, one, "methods.yaml plays 3 orderings")
	spec, err := experiments.Parse("methods.yaml", one, settings.Default(), enginetest.Set(t))
	require.NoError(t, err)
	spec.Limit, spec.StageSize = 3, 3
	spec.Settings["evolver"] = map[string]any{"dev": map[string]any{"cases": 2, "generations": 1, "population": 2}}
	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))

	in, err := analysis.Load(ctx, env.Engine.Results, env.Engine.Benchmarks, "methods")
	require.NoError(t, err)
	rep := analysis.Build(in)
	require.Len(t, rep.Conditions, 62) // 15 methods on 4 benchmarks, and MaTTS on 2
	for _, c := range rep.Conditions {
		require.Equal(t, 3, c.Overall.N, c.Name)
		require.Positive(t, c.Overall.TimeMS["diagnose"], "condition %s: diagnose time recorded", c.Name)
		if strings.HasSuffix(c.Name, "-gepa") || strings.HasSuffix(c.Name, "-evoprompt") {
			// The development phase (the seed and two children, GEPA perhaps a
			// merge) is update cost, spread over the stream's 3 episodes.
			require.NotNil(t, c.DevPhase, c.Name)
			require.GreaterOrEqual(t, c.DevPhase.Candidates, 3, c.Name)
			require.Equal(t, 2*c.DevPhase.Candidates, c.DevPhase.Episodes, "%s: two development cases per candidate", c.Name)
			require.GreaterOrEqual(t, c.Overall.TimeMS["update"], c.DevPhase.TimeMS/3, c.Name)
		} else {
			require.Nil(t, c.DevPhase, c.Name)
		}
	}
	kinds := func(cond string) map[clinic.CardKind]int {
		cards, err := env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{spec.RunID(cond)}, IncludeEvicted: true})
		require.NoError(t, err)
		out := map[clinic.CardKind]int{}
		for _, c := range cards {
			out[c.Kind]++
		}
		return out
	}
	// Mem0 remembers nothing of an episode with neither a diagnosis that held
	// nor a named wrong one (three cases may have none): across the four
	// benchmarks it must remember something.
	mem0 := 0
	for _, b := range []string{"medevoeval", "medinquire", "gpagent", "klinike"} {
		for _, m := range []string{"mem0", "exprag", "remem", "transcripts", "evotest", "clinevo"} {
			t.Logf("%s-%s cards: %v", b, m, kinds(b+"-"+m))
		}
		mem0 += kinds(b + "-mem0")[clinic.CardMemory]
		require.Positive(t, kinds(b + "-exprag")[clinic.CardExperience], "%s-exprag keeps experiences", b)
		require.Positive(t, kinds(b + "-transcripts")[clinic.CardSummary], "%s-transcripts keeps transcripts", b)
		require.Equal(t, 3, kinds(b + "-icl")[clinic.CardExample], "%s-icl (episodes: all) keeps each of its 3 episodes", b)
		require.Empty(t, kinds(b+"-static"), "%s-static keeps nothing", b)
		evo, err := env.Engine.Results.Records(ctx, spec.RunID(b+"-evotest"))
		require.NoError(t, err)
		require.NotEmpty(t, evo)
		for _, r := range evo {
			require.NotNil(t, r.Temperature, "%s-evotest: %s keeps the doctor temperature EvoTest chose", b, r.EpisodeID)
		}
		for _, m := range []string{"evoprompt", "gepa"} {
			dev, err := env.Engine.Results.Records(ctx, contract.DevRunID(spec.RunID(b+"-"+m), 0, 0))
			require.NoError(t, err)
			require.Len(t, dev, 2, "%s-%s: the seed played on the development cases", b, m)
			require.Equal(t, string(contract.KindDev), dev[0].Kind)
			child, err := env.Engine.Results.Records(ctx, contract.DevRunID(spec.RunID(b+"-"+m), 1, 1))
			require.NoError(t, err)
			require.Len(t, child, 2, "%s-%s: every child played on the development cases", b, m)
			recs, err := env.Engine.Results.Records(ctx, spec.RunID(b+"-"+m))
			require.NoError(t, err)
			require.Equal(t, recs[0].RuleBook, recs[2].RuleBook, "%s-%s: the prompt is frozen during the stream", b, m)
		}
	}
	for _, b := range []string{"medevoeval", "medinquire", "gpagent", "klinike"} {
		require.Positive(t, kinds(b + "-reasoningbank")[clinic.CardStrategy], "%s-reasoningbank keeps strategy items", b)
		for _, m := range []string{"memrl", "memento"} {
			cards, err := env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{spec.RunID(b + "-" + m)}, IncludeEvicted: true})
			require.NoError(t, err)
			require.True(t, slices.ContainsFunc(cards, func(c clinic.Card) bool { return len(c.Utility) > 0 }),
				"%s-%s: a card retrieved after the first episode has a utility", b, m)
		}
	}
	for _, b := range []string{"medevoeval", "medinquire"} {
		recs, err := env.Engine.Results.Records(ctx, spec.RunID(b+"-matts"))
		require.NoError(t, err)
		require.Len(t, recs, 3, "%s-matts: one record a case", b)
		for _, r := range recs {
			require.NotNil(t, r.Attempts, "%s-matts %s", b, r.EpisodeID)
			require.Len(t, r.Attempts.IDs, 3, "%s-matts: k = 3 attempts of %s", b, r.EpisodeID)
		}
	}
	require.Positive(t, mem0, "mem0 keeps consolidated memories")
	paired := 0
	for _, c := range rep.Comparisons {
		if strings.HasSuffix(c.B, "-static") || strings.HasSuffix(c.A, "-static") {
			paired++
		}
	}
	require.Positive(t, paired, "methods are compared case by case with the static prompt")
	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, analysis.StoreTraces(ctx, env.Engine.Results)))
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(rep.Conditions, func(c analysis.ConditionReport) bool { return c.Name == "klinike-ace" }))
	require.Contains(t, string(page), "gpagent-gepa")
}
