package experiments_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// TestDevelopmentIsHeldOut: a prompt optimiser's development set defaults to
// the stream corpus's held-out split (EvoClinician §4) and a development
// set the stream also plays is refused, naming the field, unless
// evolver.dev.overlap says so.
func TestDevelopmentIsHeldOut(t *testing.T) {
	lib := corpus.NewLibrary(defaultSet(t))
	opt := func(dev settings.Dev) settings.Settings {
		s := settings.Default()
		s.Evolver.Method, s.Evolver.Dev = settings.MethodEvoPrompt, dev
		s.Evolver.Dev.Cases = 6
		return s
	}
	for _, tc := range []struct {
		name, stream string
		limit        int
		dev          settings.Dev
		want, err    string
	}{
		{"empty: the held-out split", "builtin:stream@7", 60, settings.Dev{}, "builtin:v2:heldout@7", ""},
		{"empty, version and seed kept", "builtin:v3:stream@11", 60, settings.Dev{}, "builtin:v3:heldout@11", ""},
		{"named held-out corpus kept", "builtin:stream@7", 60, settings.Dev{Corpus: "builtin:heldout@7"}, "builtin:heldout@7", ""},
		{"the stream's own corpus", "builtin:stream@7", 60, settings.Dev{Corpus: "builtin:stream@7"}, "",
			"evolver.dev.corpus builtin:stream@7: 6 of its first 6 cases are cases the stream plays"},
		{"the same corpus spelt otherwise", "builtin:stream@7", 60, settings.Dev{Corpus: "builtin:v2:stream@7"}, "", "evolver.dev.corpus builtin:v2:stream@7: 6 of its first 6"},
		{"past the stream's limit is held out", "builtin:stream@7", 0, settings.Dev{Corpus: "builtin:cross@7"}, "builtin:cross@7", ""},
		{"empty with no held-out split", "builtin:heldout@7", 60, settings.Dev{}, "",
			"evolver.dev.corpus: empty, and corpus builtin:heldout@7 has no held-out split clinevo knows"},
		{"overlap allowed", "builtin:stream@7", 60, settings.Dev{Corpus: "builtin:stream@7", Overlap: true}, "builtin:stream@7", ""},
		{"overlap allowed, empty stays the stream's", "builtin:heldout@7", 60, settings.Dev{Overlap: true}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := experiments.Development(lib, tc.stream, tc.limit, opt(tc.dev))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.ErrorContains(t, err, "evolver.dev.overlap: true")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.Evolver.Dev.Corpus)
		})
	}
	s, err := experiments.Development(lib, "builtin:stream@7", 60, settings.Default())
	require.NoError(t, err)
	require.Equal(t, settings.Default(), s, "methods without a development phase are left alone")
}

// TestSpecDevelopmentFilledIn: a spec's optimiser condition without a
// development corpus plays the held-out split, written into its settings.
func TestSpecDevelopmentFilledIn(t *testing.T) {
	spec, err := experiments.Parse("x.yaml", []byte("name: x\ncorpus: builtin:stream@7\nlimit: 10\nconditions:\n"+
		"  - {name: A, kind: stream, settings: {evolver: {method: gepa, dev: {cases: 2}}}}\n  - {name: B, kind: stream}\n"), settings.Default(), defaultSet(t))
	require.NoError(t, err)
	a, err := spec.SettingsOf(0)
	require.NoError(t, err)
	require.Equal(t, "builtin:v2:heldout@7", a.Evolver.Dev.Corpus)
	require.Equal(t, 2, a.Evolver.Dev.Cases, "the condition's other development settings are kept")
	require.Nil(t, spec.Conditions[1].Settings, "a condition without a development phase is not touched")
	_, err = experiments.Parse("x.yaml", []byte("name: x\ncorpus: builtin:stream@7\nconditions:\n"+
		"  - {name: A, kind: stream, settings: {evolver: {method: evoprompt, dev: {corpus: builtin:stream@7}}}}\n"), settings.Default(), defaultSet(t))
	require.ErrorContains(t, err, "x.yaml: experiment x: conditions[0] (A): settings: evolver.dev.corpus builtin:stream@7: 6 of its first 6 cases")
}
