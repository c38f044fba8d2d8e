package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
)

// Reference values are worked out by hand in the comments.
func TestWilcoxonExact(t *testing.T) {
	// Hollander & Wolfe's depression scores (the example of R's wilcox.test):
	// all nine differences positive but one, no ties: V = 40; the exact
	// P(V >= 40) counts the subsets of {1..9} with sum <= 5: 10 of 512, so
	// the two-sided p is 20/512 = 0.0390625.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	r := analysis.Wilcoxon(d)
	require.True(t, r.Exact)
	require.Equal(t, 9, r.N)
	require.InDelta(t, 40, r.WPlus, 1e-9)
	require.InDelta(t, 5, r.WMinus, 1e-9)
	require.InDelta(t, 0.0390625, r.P, 1e-12)
}

func TestWilcoxonNormalWithTiesAndZeros(t *testing.T) {
	// d = 1, -1, 2, 2, 3, 0: the zero is dropped (n = 5); |d| ranks 1.5, 1.5,
	// 3.5, 3.5, 5; W+ = 1.5+3.5+3.5+5 = 13.5. Ties, so the normal
	// approximation: mean 7.5, variance 5·6·11/24 − (6+6)/48 = 13.5,
	// z = (13.5 − 7.5 − 0.5)/√13.5 = 1.49691, p = 0.134417.
	r := analysis.Wilcoxon([]float64{1, -1, 2, 2, 3, 0})
	require.False(t, r.Exact)
	require.Equal(t, 5, r.N)
	require.Equal(t, 1, r.Zeros)
	require.InDelta(t, 13.5, r.WPlus, 1e-9)
	require.InDelta(t, 1.4969104, r.Z, 1e-6)
	require.InDelta(t, 0.1344166, r.P, 1e-6)
	require.Equal(t, 1.0, analysis.Wilcoxon([]float64{0, 0}).P)
}

func TestWilcoxonRoundsDifferences(t *testing.T) {
	// Variables, not constants: Go folds constant expressions exactly, and
	// the point is the float64 arithmetic a report does at run time.
	a, b, c := 0.1, 0.2, 0.3
	require.NotZero(t, a+b-c, "0.1+0.2−0.3 is 5.6e-17 in float64")
	require.NotEqual(t, c, a+b, "0.1+0.2 is 0.30000000000000004 in float64")

	// d = 0.1+0.2, −0.3, 0.5, 0.9, 0.1+0.2−0.3. Rounded to 1e-9 the last is a
	// zero (dropped, n = 4) and |0.1+0.2| ties with |−0.3|: ranks 1.5, 1.5, 3,
	// 4; W+ = 1.5+3+4 = 8.5, W− = 1.5. A tie, so the normal approximation:
	// mean 4·5/4 = 5, variance 4·5·9/24 − (2³−2)/48 = 7.375,
	// z = (8.5 − 5 − 0.5)/√7.375 = 1.1046895, p = 2·(1 − Φ(z)) = 0.2692941.
	// (Exact float equality keeps 5.6e-17 as rank 1 of n = 5, breaks the tie
	// and reports W+ = 1+3+4+5 = 13 from the exact distribution.)
	r := analysis.Wilcoxon([]float64{a + b, -c, 0.5, 0.9, a + b - c})
	require.Equal(t, 1, r.Zeros)
	require.Equal(t, 4, r.N)
	require.InDelta(t, 8.5, r.WPlus, 1e-12)
	require.InDelta(t, 1.5, r.WMinus, 1e-12)
	require.False(t, r.Exact, "the tie rules out the exact distribution")
	require.InDelta(t, 1.1046895, r.Z, 1e-6)
	require.InDelta(t, 0.2692941, r.P, 1e-6)

	t.Run("differences above the resolution count", func(t *testing.T) {
		// 1e-8 is ten units of 1e-9: kept, and distinct from 2e-8. Ranks 1, 2;
		// W+ = 1+2 = 3 of n = 2, exact p = 2·P(W+ >= 3) = 2·(1/4) = 0.5.
		r := analysis.Wilcoxon([]float64{1e-8, 2e-8, 4e-10})
		require.Equal(t, 1, r.Zeros, "4e-10 rounds to zero")
		require.Equal(t, 2, r.N)
		require.True(t, r.Exact)
		require.InDelta(t, 3, r.WPlus, 1e-12)
		require.InDelta(t, 0.5, r.P, 1e-12)
	})
}

func TestMcNemarPaired(t *testing.T) {
	tests := []struct {
		name string
		a, b []bool
		want analysis.McNemarResult
	}{
		{
			// Pass/fail of six cases under A and B: cases 1–3 pass only under
			// A, case 4 passes under both, 5 under neither, 6 only under B.
			// b = 3, c = 1: p = 2·P(X ≤ 1 | 4, 1/2) = 2·(1 + 4)/16 = 0.625.
			name: "pass",
			a:    []bool{true, true, true, true, false, false},
			b:    []bool{false, false, false, true, false, true},
			want: analysis.McNemarResult{B: 3, C: 1, P: 0.625},
		},
		{
			// Strict correctness: five cases right only under B, none only
			// under A, two under both. b = 0, c = 5: p = 2·(1/32) = 0.0625.
			name: "strict",
			a:    []bool{false, false, false, false, false, true, true},
			b:    []bool{true, true, true, true, true, true, true},
			want: analysis.McNemarResult{B: 0, C: 5, P: 0.0625},
		},
		{
			// Six discordant pairs all one way: p = 2/64 = 0.03125.
			name: "one-sided",
			a:    []bool{true, true, true, true, true, true},
			b:    []bool{false, false, false, false, false, false},
			want: analysis.McNemarResult{B: 6, C: 0, P: 0.03125},
		},
		{
			name: "concordant only",
			a:    []bool{true, false},
			b:    []bool{true, false},
			want: analysis.McNemarResult{P: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := analysis.McNemarPaired(tc.a, tc.b)
			require.NoError(t, err)
			require.Equal(t, tc.want.B, got.B)
			require.Equal(t, tc.want.C, got.C)
			require.InDelta(t, tc.want.P, got.P, 1e-12)
		})
	}
	t.Run("unpaired", func(t *testing.T) {
		_, err := analysis.McNemarPaired([]bool{true}, []bool{true, false})
		require.ErrorContains(t, err, "1 outcomes for A and 2 for B")
	})
}

func TestMcNemarExact(t *testing.T) {
	// b = 10, c = 2: p = 2·P(X <= 2 | 12, 1/2) = 2·(1 + 12 + 66)/4096.
	require.InDelta(t, 0.03857421875, analysis.McNemarExact(10, 2), 1e-12)
	require.InDelta(t, 0.03857421875, analysis.McNemarExact(2, 10), 1e-12)
	require.Equal(t, 1.0, analysis.McNemarExact(3, 3))
	require.Equal(t, 1.0, analysis.McNemarExact(0, 0))
}

func TestMannKendall(t *testing.T) {
	// 1..5: S = 10, Var = 5·4·15/18 = 16.667, z = 9/√16.667 = 2.20454, p = 0.027486.
	r := analysis.MannKendall([]float64{1, 2, 3, 4, 5})
	require.Equal(t, 10, r.S)
	require.InDelta(t, 16.6667, r.Var, 1e-4)
	require.InDelta(t, 2.2045408, r.Z, 1e-6)
	require.InDelta(t, 0.0274863, r.P, 1e-6)
	// With a tie, 1, 2, 2, 3: S = 5, Var = (4·3·13 − 2·1·9)/18 = 7.667, z = 4/√7.667, p = 0.148562.
	r = analysis.MannKendall([]float64{1, 2, 2, 3})
	require.Equal(t, 5, r.S)
	require.InDelta(t, 7.6667, r.Var, 1e-4)
	require.InDelta(t, 0.1485618, r.P, 1e-6)
	require.Equal(t, -10, analysis.MannKendall([]float64{5, 4, 3, 2, 1}).S)
}

func TestCUSUM(t *testing.T) {
	// Mean 0.5; sums −0.5, −1, −1.5, −1, −0.5, 0: the largest |sum| 1.5 is after index 2.
	r := analysis.CUSUM([]float64{0, 0, 0, 1, 1, 1})
	require.Equal(t, []float64{-0.5, -1, -1.5, -1, -0.5, 0}, r.Values)
	require.Equal(t, 1.5, r.Max)
	require.Equal(t, 2, r.At)
}

func TestBootstrapMean(t *testing.T) {
	c := analysis.BootstrapMean([]float64{0.2, 0.2, 0.2}, 1000, 7)
	require.InDelta(t, 0.2, c.Low, 1e-12)
	require.InDelta(t, 0.2, c.High, 1e-12)
	xs := []float64{0.1, 0.5, 0.3, 0.9, 0.2, 0.4, 0.8, 0.6}
	a, b := analysis.BootstrapMean(xs, 2000, 7), analysis.BootstrapMean(xs, 2000, 7)
	require.Equal(t, a, b, "seeded")
	require.Less(t, a.Low, analysis.Mean(xs))
	require.Greater(t, a.High, analysis.Mean(xs))
	require.Greater(t, a.Low, 0.1)
	require.Less(t, a.High, 0.9)
}
