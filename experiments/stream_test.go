package experiments_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// TestStream: a stream spec is checked whole before it starts, and comes
// back as it will run: its defaults filled, a prompt optimiser's
// development set chosen; a field, a setting, a corpus or a case ID that
// cannot work is an error naming it.
func TestStream(t *testing.T) {
	set := defaultSet(t)
	lib := corpus.NewLibrary(set)
	spec := func(f func(*contract.StreamSpec)) contract.StreamSpec {
		s := contract.StreamSpec{RunID: "r1", Corpus: "builtin:stream@7", Memory: contract.MemoryEmpty, Limit: 10, Settings: settings.Default()}
		f(&s)
		return s
	}
	got, err := experiments.Stream(lib, set, spec(func(s *contract.StreamSpec) { s.CaseIDs = []string{"stream-0002"} }))
	require.NoError(t, err)
	require.Equal(t, contract.DefaultStageSize, got.StageSize, "the defaults are filled")
	got, err = experiments.Stream(lib, set, spec(func(s *contract.StreamSpec) { s.Settings.Evolver.Method = settings.MethodEvoPrompt }))
	require.NoError(t, err)
	require.Equal(t, "builtin:v2:heldout@7", got.Settings.Evolver.Dev.Corpus, "the optimiser develops on the held-out split")

	for _, tc := range []struct {
		name string
		f    func(*contract.StreamSpec)
		want string
	}{
		{"no run", func(s *contract.StreamSpec) { s.RunID = "" }, "stream spec: run_id is required"},
		{"unknown benchmark", func(s *contract.StreamSpec) { s.Settings.Benchmark = "nosuch" }, "stream r1: settings: "},
		{"no such corpus", func(s *contract.StreamSpec) { s.Corpus = "builtin:nosuch" }, "builtin:nosuch"},
		{"no such case", func(s *contract.StreamSpec) { s.CaseIDs = []string{"stream-0002", "nope"} },
			`stream r1: case "nope" is not in corpus builtin:stream@7`},
		{"development on the stream", func(s *contract.StreamSpec) {
			s.Settings.Evolver.Method, s.Settings.Evolver.Dev.Corpus = settings.MethodEvoPrompt, "builtin:stream@7"
		}, "stream r1: settings: evolver.dev.corpus builtin:stream@7: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := experiments.Stream(lib, set, spec(tc.f))
			require.ErrorContains(t, err, tc.want)
		})
	}
}
