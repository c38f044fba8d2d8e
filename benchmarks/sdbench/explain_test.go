package sdbench_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
)

// TestExplain checks the episode page's explanation against stored scores,
// and that it flags scores that do not add up.
func TestExplain(t *testing.T) {
	sc := clinic.Scores{Cost: 645, Metrics: map[string]float64{"likert": 4, "correct": 1, "visits": 2, "visit_cost_usd": 600, "test_cost_usd": 45}}
	v := sdbench.Benchmark{}.Explain(sc, nil, sdSettings())
	require.Contains(t, v.Check, "hold")
	require.Contains(t, v.Lines[2].How, "2 × 300 + 45.00")
	sc.Cost = 700
	require.Contains(t, sdbench.Benchmark{}.Explain(sc, nil, sdSettings()).Check, "is not visits")
	sc.Cost, sc.Metrics["correct"] = 645, 0
	require.Contains(t, sdbench.Benchmark{}.Explain(sc, nil, sdSettings()).Check, "does not follow")
}
