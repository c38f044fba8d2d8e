package sdbench_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// sdSettings are a run of SDBench: 12 turns, no budget.
func sdSettings() settings.Settings {
	s := settings.Default()
	s.Benchmark = sdbench.Name
	s.Episode.MaxTurns = 12
	s.Evolver.Mode = settings.ScoreOnly
	return s
}

func withEpisode(s settings.Settings, key string, v any) settings.Settings {
	s = s.Clone()
	if s.Episode.Ext == nil {
		s.Episode.Ext = map[string]any{}
	}
	s.Episode.Ext[key] = v
	return s
}

// budgeted is s under the budgeted variant with a budget of usd.
func budgeted(s settings.Settings, usd float64) settings.Settings {
	return withEpisode(withEpisode(s, "variant", sdbench.Budgeted), "cost_cap", usd)
}

func episodeKey(key string, v any) settings.Overrides {
	return settings.Overrides{"episode": map[string]any{key: v}}
}

// sampleCases are six stream cases and three of the held-out conditions.
func sampleCases(t *testing.T) []clinic.Case {
	stream, err := sdbench.Generate("sdbench", 7)
	require.NoError(t, err)
	held, err := sdbench.Generate("sdbench-heldout", 7)
	require.NoError(t, err)
	return append(stream[:6:6], held[:3]...)
}
