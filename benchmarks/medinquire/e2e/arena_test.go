package e2e_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestDiagnosisArenaStream plays the shipped diagnosisarena.yaml's
// EvoClinician condition on the first 100 DiagnosisArena cases, in two
// stages of 50, on the embedded Temporal server with the built-in roles:
// the stream finishes, plays the imported cases in published order, and
// every episode is graded 0–100 and costs at least the base cost of its
// turns, and the doctor orders tests.
func TestDiagnosisArenaStream(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 100 episodes on the embedded server")
	}
	env := enginetest.Start(t)
	spec := enginetest.Spec(t, "diagnosisarena.yaml", medinquire.ArenaProtocol)
	require.Equal(t, "builtin:diagnosisarena", spec.Corpus)
	spec.Name, spec.Limit, spec.StageSize = "arena", 100, 50
	spec = enginetest.Keep(t, spec, "evoclinician")
	_, rep := enginetest.RunExperiment(t, env, spec)
	require.Len(t, rep.Conditions, 1)
	c := rep.Conditions[0]
	require.Equal(t, medinquire.Name, c.Benchmark)
	require.Equal(t, 100, c.Overall.N)
	require.Len(t, c.Episodes, 100)
	tested := 0
	for i, r := range c.Episodes {
		if r.Scores.E > 0 {
			tested++
		}
		require.Equal(t, fmt.Sprintf("diagnosisarena-%04d", i+1), r.CaseID, "published order")
		require.GreaterOrEqual(t, r.Scores.Grade, 0)
		require.LessOrEqual(t, r.Scores.Grade, 100)
		require.GreaterOrEqual(t, r.Scores.Cost, 5*float64(r.Scores.T), "C is at least the base cost of 5 a turn")
	}
	t.Logf("episodes with a billable test ordered: %d of 100", tested)
	require.Positive(t, tested, "the built-in doctor orders tests where the view shows no list")
}
