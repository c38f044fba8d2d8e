package medinquire_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/corpus"
)

// TestStatsCountRedactions: the DiagnosisArena import withholds two texts
// that name the diagnosis (case 75's laryngoscopy finding of the foreign
// body, case 345's history of end-stage renal disease) and stats count them.
func TestStatsCountRedactions(t *testing.T) {
	lib := benchtest.Library(medinquire.Benchmark{})
	c, err := lib.Load("builtin:diagnosisarena")
	require.NoError(t, err)
	st := corpus.StatsOf(c)
	require.Equal(t, 915, st.Cases)
	require.Equal(t, 2, st.RedactedCases)
	require.Equal(t, 2, st.Redactions)
	var b bytes.Buffer
	corpus.WriteStats(&b, c)
	require.Contains(t, b.String(), "redacted by the importer's leak guard: 2 cases, 2 texts naming the diagnosis\n")
	stream, err := lib.Load("builtin:stream@7")
	require.NoError(t, err)
	require.Zero(t, corpus.StatsOf(stream).RedactedCases)
}
