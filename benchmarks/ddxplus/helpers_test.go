package ddxplus_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// sample are the shipped patients, in the file's order.
func sample(t *testing.T) []clinic.Case {
	t.Helper()
	cases, err := ddxplus.Benchmark{}.Builtin(ddxplus.Split, 2, 7)
	require.NoError(t, err)
	return cases
}

// dict is the shipped dictionary.
func dict(t *testing.T) *ddxplus.Dictionary {
	t.Helper()
	d, err := ddxplus.Embedded()
	require.NoError(t, err)
	return d
}

// run are the settings of a DDXPlus run in a mode, score-only.
func run(mode string) settings.Settings {
	s := settings.Default()
	s.Benchmark = ddxplus.Name
	s.Evolver.Mode = settings.ScoreOnly
	s.Episode.Ext = map[string]any{"ddxplus_mode": mode}
	return s
}
