package activities_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
)

// defaultSet is the benchmark set of these tests: the default profile,
// MedEvoEval, alone (the engine hands a worker the build's whole set).
func defaultSet(t testing.TB) bench.Set {
	set, err := bench.NewSet(medevoeval.Benchmark{})
	require.NoError(t, err)
	return set
}
