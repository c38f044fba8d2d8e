package corpus_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// A builtin reference is generated once per process: a second load gives the
// same cases as the generator, in a list of its own.
func TestLoadBuiltinOnce(t *testing.T) {
	want, err := synth.GenerateVersion(synth.Default, 11)
	require.NoError(t, err)
	for _, split := range synth.Splits {
		a, err := corpus.Library{}.Load("builtin:" + split + "@11")
		require.NoError(t, err)
		b, err := corpus.Library{}.Load("builtin:" + split + "@11")
		require.NoError(t, err)
		require.Equal(t, want[split], a.Cases, split)
		require.Equal(t, want[split], b.Cases, split)
		a.Cases[0].ID = "renamed"
		require.Equal(t, want[split][0].ID, b.Cases[0].ID, "%s: the second load has a list of its own", split)
		again, err := corpus.Library{}.Load("builtin:" + split + "@11")
		require.NoError(t, err)
		_, ok := again.Case(want[split][0].ID)
		require.True(t, ok, split)
	}
	_, err = corpus.Library{}.Load("builtin:v9:stream@11")
	require.Error(t, err)
}
