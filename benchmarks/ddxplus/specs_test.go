package ddxplus_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// TestStreamBenchSpec: the shipped spec maps StreamBench's baselines onto
// the learning methods with StreamBench's k = 16 (appendix A), score-only,
// every condition valid for the benchmark.
func TestStreamBenchSpec(t *testing.T) {
	set := benchtest.SetOf(t, ddxplus.Benchmark{})
	spec, err := experiments.Parse("streambench.yaml", ddxplus.Protocol, set.DefaultSettings(), set)
	require.NoError(t, err)
	type mapped struct {
		method, retrieval, mode string
		k                       int
	}
	want := map[string]mapped{
		"zero-shot":             {settings.MethodStatic, "similarity", ddxplus.ModeStream, 5},
		"growprompt":            {settings.MethodExpRAG, "recent", ddxplus.ModeStream, 16},
		"memprompt":             {settings.MethodExpRAG, "similarity", ddxplus.ModeStream, 16},
		"self-streamicl":        {settings.MethodICL, "similarity", ddxplus.ModeStream, 16},
		"icl-correct":           {settings.MethodICL, "recent", ddxplus.ModeStream, 300},
		"icl-all":               {settings.MethodICL, "recent", ddxplus.ModeStream, 300},
		"interactive-zero-shot": {settings.MethodStatic, "similarity", ddxplus.ModeInteractive, 5},
		"interactive-memprompt": {settings.MethodExpRAG, "similarity", ddxplus.ModeInteractive, 16},
	}
	require.Len(t, spec.Conditions, len(want))
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		require.NoError(t, err, c.Name)
		require.NoError(t, set.ValidateSettings(s), c.Name)
		ep, err := ddxplus.EpisodeOf(s)
		require.NoError(t, err)
		require.Equal(t, want[c.Name], mapped{s.Evolver.Method, s.Memory.Retrieval, ep.Mode, s.Memory.K}, c.Name)
		require.Equal(t, settings.ScoreOnly, s.Evolver.Mode, c.Name)
		require.Zero(t, s.Evolver.RuleBudget, c.Name)
	}
}
