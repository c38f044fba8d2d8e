package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
)

// TestKendallTau works τ-b out by hand.
func TestKendallTau(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		// Pairs of (1,2,3,4) against (1,3,2,4): only (2,3) is discordant, so
		// n_c = 5, n_d = 1 and τ = (5 − 1)/6 = 0.6667.
		{"one swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6},
		{"the same order", []float64{0.3, 0.2, 0.1}, []float64{30, 20, 10}, 1},
		{"the reverse order", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// x ties its first two items: n₀ = 3, n₁ = 1, n₂ = 0, n_c = 2, n_d = 0,
		// τ_b = 2/√((3 − 1)(3 − 0)) = 2/√6 = 0.8165.
		{"a tie", []float64{1, 1, 2}, []float64{1, 2, 3}, 2 / 2.449489742783178},
		{"all ties", []float64{1, 1, 1}, []float64{1, 2, 3}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.InDelta(t, tc.want, analysis.KendallTau(tc.x, tc.y), 1e-12)
		})
	}
}
