package analysis

// An internal test: the MacKinnon surfaces and the default lag rule are
// checked directly against published tables, as well as through ADF.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Reference values are worked out by hand in the comments, with exact
// fractions; Φ is the standard normal distribution function.
func TestADFHandComputed(t *testing.T) {
	tests := []struct {
		name  string
		ys    []float64
		lags  int
		trend bool
		want  ADFResult
	}{
		{
			// y = 1, 3, 2, 5, 4, 4. The default rule: ⌊5^{1/3}⌋ = 1 would leave
			// 6−2−3 = 1 residual degree of freedom, below ten, so p = 0 and
			// T = 5. Δy_t on (1, y_{t−1}) is a simple regression:
			//   x = y_{t−1} = 1, 3, 2, 5, 4 (x̄ = 3, Sxx = 4+0+1+4+1 = 10)
			//   Δy = 2, −1, 3, −1, 0 (mean 0.6)
			//   Sxy = Σ(x−3)·Δy = −4 + 0 − 3 − 2 + 0 = −9, so γ̂ = −0.9
			//   SSE = Σ(Δy−0.6)² − Sxy²/Sxx = (15 − 1.8) − 8.1 = 5.1
			//   s² = 5.1/(5−2) = 1.7, se(γ̂)² = s²/Sxx = 0.17
			//   τ = −0.9/√0.17 = −9/√17 = −2.1828206.
			// P: τ ≤ τ* = −1.61, so Φ(2.1659 + 1.4412τ + 0.038269τ²)
			//   = Φ(2.1659 − 3.1458811 + 0.1823405) = Φ(−0.7976406) = 0.2125396.
			// Critical values at T = 5: β∞ + β1/5 + β2/25 + β3/125, e.g. 5%:
			//   −2.86154 − 0.57806 − 0.16936 − 0.32032 = −3.92928.
			name: "constant, default lags", ys: []float64{1, 3, 2, 5, 4, 4}, lags: ADFDefaultLags,
			want: ADFResult{Status: SeriesOK, N: 6, Lags: 0, Obs: 5, Stat: -9 / math.Sqrt(17), P: 0.2125396,
				Crit1: -6.045114, Crit5: -3.92928, Crit10: -2.98681},
		},
		{
			// y = 3, 2, 4, 4, 3, 2, 3, 5; Δy_1…Δy_7 = −1, 2, 0, −1, −1, 1, 2.
			// p = 1, T = 6, rows t = 2…7 of (1, y_{t−1}, Δy_{t−1}) → Δy_t:
			//   y_{t−1}  = 2, 4, 4, 3, 2, 3
			//   Δy_{t−1} = −1, 2, 0, −1, −1, 1
			//   Δy_t     = 2, 0, −1, −1, 1, 2
			// X'X = [[6, 18, 0], [18, 58, 4], [0, 4, 8]], X'Δy = (3, 5, 0).
			// The solution is (13/2, −2, 1): 39−36 = 3, 117−116+4 = 5, −8+8 = 0.
			// Fitted 6.5 − 2·y_{t−1} + Δy_{t−1} = 1.5, 0.5, −1.5, −0.5, 1.5, 1.5,
			// residuals ±1/2, SSE = 6/4 = 3/2, s² = (3/2)/(6−3) = 1/2.
			// det X'X = 6·(58·8−16) − 18·(18·8) = 2688 − 2592 = 96; the γ
			// cofactor 6·8 − 0 = 48, so (X'X)⁻¹_γγ = 1/2 and se(γ̂)² = 1/4.
			// τ = −2/(1/2) = −4.
			// P = Φ(2.1659 − 5.7648 + 0.612304) = Φ(−2.986596) = 0.0014105.
			// T = 6, 5%: −2.86154 − 2.8903/6 − 4.234/36 − 40.040/216 = −3.6462381:
			// rejected at 5%, not at 1% (−5.3542565).
			name: "constant, one lag", ys: []float64{3, 2, 4, 4, 3, 2, 3, 5}, lags: 1,
			want: ADFResult{Status: SeriesOK, N: 8, Lags: 1, Obs: 6, Stat: -4, P: 0.0014105,
				Crit1: -5.3542565, Crit5: -3.6462381, Crit10: -2.9011978, Reject5: true},
		},
		{
			// y = 4, 3, 5, 5, 3, 4, 4; p = 0, T = 6, rows t = 1…6 of
			// (1, t, y_{t−1}) → Δy_t:
			//   t = 1…6, y_{t−1} = 4, 3, 5, 5, 3, 4, Δy_t = −1, 2, 0, −2, 1, 0
			// X'X = [[6, 21, 24], [21, 91, 84], [24, 84, 100]],
			// X'Δy = (0, −1+4+0−8+5+0, −4+6+0−10+3+0) = (0, 0, −5).
			// The solution is (5, 0, −5/4): 30−30 = 0, 105−105 = 0, 120−125 = −5.
			// Residuals Δy − (5 − 1.25·y_{t−1}) = −1, 0.75, 1.25, −0.75, −0.25, 0,
			// SSE = 1 + (9+25+9+1)/16 = 15/4, s² = (15/4)/(6−3) = 5/4.
			// det X'X = 6·2044 − 21·84 + 24·(−420) = 420; the γ cofactor
			// 6·91 − 21² = 105, so (X'X)⁻¹_γγ = 1/4 and se(γ̂)² = 5/16.
			// τ = −(5/4)/(√5/4) = −√5 = −2.2360680.
			// P: τ > τ* = −2.89 (trend), so the cubic:
			//   Φ(2.5261 + 0.61654τ − 0.37956τ² − 0.060285τ³)
			//   = Φ(2.5261 − 1.3786254 − 1.8978 + 0.6740068) = Φ(−0.0763186) = 0.4695828.
			name: "trend", ys: []float64{4, 3, 5, 5, 3, 4, 4}, lags: 0, trend: true,
			want: ADFResult{Status: SeriesOK, Trend: true, N: 7, Lags: 0, Obs: 6, Stat: -math.Sqrt(5), P: 0.4695828,
				Crit1: -6.8783746, Crit5: -4.6032881, Crit10: -3.7706222},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ADF(tc.ys, tc.lags, tc.trend)
			require.Equal(t, tc.want.Status, got.Status)
			require.Equal(t, tc.want.Trend, got.Trend)
			require.Equal(t, tc.want.N, got.N)
			require.Equal(t, tc.want.Lags, got.Lags)
			require.Equal(t, tc.want.Obs, got.Obs)
			require.InDelta(t, tc.want.Stat, got.Stat, 1e-9)
			require.InDelta(t, tc.want.P, got.P, 1e-7)
			require.InDelta(t, tc.want.Crit1, got.Crit1, 1e-6)
			require.InDelta(t, tc.want.Crit5, got.Crit5, 1e-6)
			require.InDelta(t, tc.want.Crit10, got.Crit10, 1e-6)
			require.Equal(t, tc.want.Reject5, got.Reject5)
		})
	}
}

func TestADFInvariance(t *testing.T) {
	// τ is a t statistic of the regression, so it cannot change when the
	// series is shifted and scaled (the constant absorbs the shift) or, with
	// the trend, when a line is added (the trend and constant absorb it).
	ys := []float64{0.52, 0.61, 0.48, 0.55, 0.67, 0.58, 0.63, 0.71, 0.62, 0.69, 0.74, 0.66, 0.72, 0.78, 0.70, 0.75, 0.81}
	for _, lags := range []int{0, 1, 2} {
		base := ADF(ys, lags, false)
		require.Equal(t, SeriesOK, base.Status)
		moved := make([]float64, len(ys))
		for i, y := range ys {
			moved[i] = 5 + 3*y
		}
		require.InDelta(t, base.Stat, ADF(moved, lags, false).Stat, 1e-9, "lags %d", lags)

		base = ADF(ys, lags, true)
		require.Equal(t, SeriesOK, base.Status)
		for i, y := range ys {
			moved[i] = y - 0.2 + 0.05*float64(i)
		}
		require.InDelta(t, base.Stat, ADF(moved, lags, true).Stat, 1e-9, "lags %d", lags)
	}
}

func TestADFStageSeries(t *testing.T) {
	// A ten-point stage series that swings around 0.5 and never drifts: the
	// unit root is rejected.
	reverting := []float64{0.52, 0.47, 0.55, 0.44, 0.53, 0.49, 0.56, 0.45, 0.51, 0.48}
	r := ADF(reverting, ADFDefaultLags, false)
	require.Equal(t, SeriesOK, r.Status)
	require.Equal(t, 0, r.Lags)
	require.Less(t, r.Stat, r.Crit5)
	require.True(t, r.Reject5)

	// A ten-point random walk from a fixed seed: not rejected.
	rng := rand.New(rand.NewPCG(10, 1))
	walk := make([]float64, 10)
	for i := 1; i < len(walk); i++ {
		walk[i] = walk[i-1] + rng.NormFloat64()
	}
	r = ADF(walk, ADFDefaultLags, false)
	require.Equal(t, SeriesOK, r.Status)
	require.False(t, r.Reject5, "τ = %v", r.Stat)
}

func TestADFSizeAndPower(t *testing.T) {
	// The statistic and the finite-sample critical values together: over
	// 2000 seeded AR(1) series y_t = φ·y_{t−1} + ε_t a 5% test of a random
	// walk (φ = 1) must reject about 5% of them, and a stationary series
	// most of them when there are enough points.
	tests := []struct {
		name     string
		n        int
		trend    bool
		phi      float64
		min, max float64
	}{
		{"ten points, random walk", 10, false, 1, 0.035, 0.065},
		{"ten points with trend, random walk", 10, true, 1, 0.035, 0.07},
		{"ten points, white noise", 10, false, 0, 0.25, 1},
		{"hundred points (p = 4), random walk", 100, false, 1, 0.035, 0.065},
		{"hundred points with trend (p = 4), random walk", 100, true, 1, 0.035, 0.065},
		{"hundred points (p = 4), φ = 0.5", 100, false, 0.5, 0.9, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			const reps = 2000
			rejected := 0
			ys := make([]float64, tc.n)
			for range reps {
				for i := 1; i < tc.n; i++ {
					ys[i] = tc.phi*ys[i-1] + rng.NormFloat64()
				}
				r := ADF(ys, ADFDefaultLags, tc.trend)
				require.Equal(t, SeriesOK, r.Status)
				if r.Reject5 {
					rejected++
				}
			}
			rate := float64(rejected) / reps
			require.GreaterOrEqual(t, rate, tc.min)
			require.LessOrEqual(t, rate, tc.max)
		})
	}
}

func TestADFDegenerate(t *testing.T) {
	line := make([]float64, 10)
	for i := range line {
		line[i] = 0.3 + 0.05*float64(i)
	}
	tests := []struct {
		name  string
		ys    []float64
		lags  int
		trend bool
		want  SeriesStatus
	}{
		{"constant", []float64{0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6}, ADFDefaultLags, false, SeriesConstant},
		{"constant within 1e-9", []float64{0.6, 0.6 + 4e-10, 0.6, 0.6, 0.6 - 4e-10, 0.6, 0.6}, ADFDefaultLags, false, SeriesConstant},
		// Five points leave 5−1−2 = 2 residual degrees of freedom; three needed.
		{"too short", []float64{0.4, 0.5, 0.3, 0.6, 0.5}, ADFDefaultLags, false, SeriesTooShort},
		{"too short with trend", []float64{0.4, 0.5, 0.3, 0.6, 0.5, 0.4}, ADFDefaultLags, true, SeriesTooShort},
		// Ten points, p = 3: T = 6, 5 coefficients, 1 residual degree of freedom.
		{"too many lags", []float64{0.4, 0.5, 0.3, 0.6, 0.5, 0.7, 0.2, 0.5, 0.6, 0.4}, 3, false, SeriesTooShort},
		{"empty", nil, ADFDefaultLags, false, SeriesTooShort},
		{"NaN", []float64{0.4, 0.5, math.NaN(), 0.6, 0.5, 0.7, 0.2, 0.5}, ADFDefaultLags, false, SeriesNonFinite},
		{"Inf", []float64{0.4, 0.5, math.Inf(1), 0.6, 0.5, 0.7, 0.2, 0.5}, ADFDefaultLags, false, SeriesNonFinite},
		// A straight line: every Δy is 0.05, fitted exactly by γ = 0.
		{"straight line", line, 0, false, SeriesPerfectFit},
		// With a lag, Δy_{t−1} = 0.05 is a multiple of the constant column.
		{"straight line with a lag", line, 1, false, SeriesCollinear},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ADF(tc.ys, tc.lags, tc.trend)
			require.Equal(t, tc.want, r.Status)
			require.Equal(t, 1.0, r.P, "no evidence against a unit root")
			require.Zero(t, r.Stat)
			require.False(t, r.Reject5)
		})
	}
}

func TestADFDefaultLags(t *testing.T) {
	tests := []struct {
		n, det, want int
	}{
		{10, 1, 0}, // ⌊9^{1/3}⌋ = 2; T−k = 7−4 = 3, then 8−3 = 5, both below ten
		{14, 1, 0}, // p = 1 leaves 14−2−3 = 9
		{15, 1, 1}, // p = 1 leaves 15−2−3 = 10
		{15, 2, 0}, // with the trend 15−2−4 = 9
		{16, 2, 1},
		{17, 1, 2}, // ⌊16^{1/3}⌋ = 2 leaves 17−3−4 = 10
		{28, 1, 3}, // 27 = 3³ exactly
		{27, 1, 2}, // 26 < 3³
		{100, 1, 4},
		{100, 2, 4},
		{3, 1, 0},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, adfDefaultLags(tc.n, tc.det), "n = %d, det = %d", tc.n, tc.det)
	}
}

func TestMacKinnonCriticalValues(t *testing.T) {
	// Fuller (1976), Table 8.5.2, as reprinted in Hamilton, Time Series
	// Analysis (1994), Table B.6: the 1%, 5% and 10% quantiles of τ for a
	// series of n points, case 2 (constant) and case 4 (constant and
	// trend), from Monte Carlo to two decimals. The regression has T = n − 1
	// observations. MacKinnon's (2010) surface, fitted to far larger
	// simulations, agrees to within 0.02 (the largest gap, 0.015, is at the
	// 1% tail for n = 25 with the trend).
	tests := []struct {
		n     int
		trend bool
		want  [3]float64
	}{
		{25, false, [3]float64{-3.75, -3.00, -2.63}},
		{50, false, [3]float64{-3.58, -2.93, -2.60}},
		{100, false, [3]float64{-3.51, -2.89, -2.58}},
		{250, false, [3]float64{-3.46, -2.88, -2.57}},
		{25, true, [3]float64{-4.38, -3.60, -3.24}},
		{50, true, [3]float64{-4.15, -3.50, -3.18}},
		{100, true, [3]float64{-4.04, -3.45, -3.15}},
		{250, true, [3]float64{-3.99, -3.43, -3.13}},
	}
	for _, tc := range tests {
		got := mackinnonCrit(tc.n-1, tc.trend)
		for i := range got {
			require.InDelta(t, tc.want[i], got[i], 0.02, "n = %d, trend %v, level %d", tc.n, tc.trend, i)
		}
	}
	// Far out the surface is its asymptote β∞ (the 1%, 5%, 10% values
	// −3.43, −2.86, −2.57 of the same table's T = ∞ row).
	got := mackinnonCrit(1_000_000_000, false)
	require.InDelta(t, -3.43035, got[0], 1e-6)
	require.InDelta(t, -2.86154, got[1], 1e-6)
	require.InDelta(t, -2.56677, got[2], 1e-6)
}

func TestMacKinnonP(t *testing.T) {
	// The 1994 p-value surface and the 2010 asymptotic critical values are
	// separate fits of the same distribution: at each β∞ the p-value must be
	// its level. E.g. τ = −2.86154: Φ(2.1659 − 4.1240514 + 0.3133623)
	// = Φ(−1.6447891) = 0.0500067.
	tests := []struct {
		tau   float64
		trend bool
		want  float64
	}{
		{-3.43035, false, 0.01},
		{-2.86154, false, 0.05},
		{-2.56677, false, 0.10},
		{-3.95877, true, 0.01},
		{-3.41049, true, 0.05},
		{-3.12705, true, 0.10},
		// Fuller's T = ∞ upper quantiles with a constant: 95% at −0.07,
		// 99% at 0.60 (the cubic branch).
		{-0.07, false, 0.95},
		{0.60, false, 0.99},
		// Outside [τ_min, τ_max] the surface is cut at 0 and 1.
		{-20, false, 0},
		{3, false, 1},
		{-17, true, 0},
		{1, true, 1},
	}
	for _, tc := range tests {
		require.InDelta(t, tc.want, mackinnonP(tc.tau, tc.trend), 0.004, "τ = %v, trend %v", tc.tau, tc.trend)
	}
	// The two branches meet at τ* (to the surface's four digits).
	for _, trend := range []bool{false, true} {
		star := -1.61
		if trend {
			star = -2.89
		}
		require.InDelta(t, mackinnonP(star, trend), mackinnonP(math.Nextafter(star, 0), trend), 0.002)
	}
}

func TestSegmented(t *testing.T) {
	tests := []struct {
		name string
		ys   []float64
		want SegmentedFit // Status, Break and the coefficients; SSE and R² below
	}{
		{
			// y = 1 + 2i up to i = 4, then 0.5 down per stage: a = 1, b = 2,
			// c = −2.5, exactly. Only k = 4 fits without residuals.
			name: "rise then fall",
			ys:   []float64{1, 3, 5, 7, 9, 8.5, 8, 7.5, 7, 6.5},
			want: SegmentedFit{Status: SeriesOK, N: 10, Break: 4, Intercept: 1, SlopeBefore: 2, SlopeAfter: -0.5, SlopeChange: -2.5},
		},
		{
			// Learning that plateaus: 0.3 + 0.1i up to i = 5, then flat.
			name: "plateau",
			ys:   []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.8, 0.8, 0.8, 0.8},
			want: SegmentedFit{Status: SeriesOK, N: 10, Break: 5, Intercept: 0.3, SlopeBefore: 0.1, SlopeAfter: 0, SlopeChange: -0.1},
		},
		{
			// The last interior index: a line through 0…8, then a drop to 5.
			name: "late break",
			ys:   []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 5},
			want: SegmentedFit{Status: SeriesOK, N: 10, Break: 8, Intercept: 0, SlopeBefore: 1, SlopeAfter: -3, SlopeChange: -4},
		},
		{
			// A straight line: every k fits with c = 0, so the earliest
			// interior index and no change.
			name: "line",
			ys:   []float64{2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5},
			want: SegmentedFit{Status: SeriesOK, N: 10, Break: 1, Intercept: 2, SlopeBefore: 0.5, SlopeAfter: 0.5, SlopeChange: 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Segmented(tc.ys)
			require.Equal(t, tc.want.Status, got.Status)
			require.Equal(t, tc.want.N, got.N)
			require.Equal(t, tc.want.Break, got.Break)
			require.InDelta(t, tc.want.Intercept, got.Intercept, 1e-9)
			require.InDelta(t, tc.want.SlopeBefore, got.SlopeBefore, 1e-9)
			require.InDelta(t, tc.want.SlopeAfter, got.SlopeAfter, 1e-9)
			require.InDelta(t, tc.want.SlopeChange, got.SlopeChange, 1e-9)
			require.InDelta(t, 0, got.SSE, 1e-18)
			require.InDelta(t, 1, got.R2, 1e-12)
		})
	}

	t.Run("linear fit for comparison", func(t *testing.T) {
		// The rise-then-fall series against i = 0…9: x̄ = 4.5, Sxx = 82.5,
		// Σy = 62.5 (ȳ = 6.25), Σiy = 70 + 257.5 = 327.5,
		// Sxy = 327.5 − 4.5·62.5 = 46.25, slope 46.25/82.5 = 37/66,
		// intercept 6.25 − 4.5·37/66 = 41/11; TSS = Σy² − 10ȳ² = 448.75 −
		// 390.625 = 58.125, explained Sxy²/Sxx = 25.9280303, so SSE =
		// 32.1969697 and R² = 25.9280303/58.125 = 0.4460736.
		got := Segmented([]float64{1, 3, 5, 7, 9, 8.5, 8, 7.5, 7, 6.5})
		require.InDelta(t, 41.0/11, got.Linear.Intercept, 1e-9)
		require.InDelta(t, 37.0/66, got.Linear.Slope, 1e-9)
		require.InDelta(t, 32.1969697, got.Linear.SSE, 1e-7)
		require.InDelta(t, 0.4460736, got.Linear.R2, 1e-7)
	})

	t.Run("line gains nothing", func(t *testing.T) {
		got := Segmented([]float64{2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5})
		require.InDelta(t, 2, got.Linear.Intercept, 1e-9)
		require.InDelta(t, 0.5, got.Linear.Slope, 1e-9)
		require.InDelta(t, got.Linear.SSE, got.SSE, 1e-18)
		require.InDelta(t, got.Linear.R2, got.R2, 1e-12)
	})

	t.Run("noisy break", func(t *testing.T) {
		// The plateau series with ±0.01 alternating noise: k = 5 still fits
		// best (SSE 0.00097 against 0.0058 at k = 6 and 0.0064 at k = 4), with
		// slopes within 0.001 of 0.1 and 0, and well below the line's 0.052.
		ys := []float64{0.31, 0.39, 0.51, 0.59, 0.71, 0.79, 0.81, 0.79, 0.81, 0.79}
		got := Segmented(ys)
		require.Equal(t, SeriesOK, got.Status)
		require.Equal(t, 5, got.Break)
		require.InDelta(t, 0.1, got.SlopeBefore, 0.001)
		require.InDelta(t, 0, got.SlopeAfter, 0.001)
		require.Less(t, got.SSE, got.Linear.SSE/10)
		require.Greater(t, got.R2, 0.99)
	})

	for _, tc := range []struct {
		name string
		ys   []float64
		want SeriesStatus
	}{
		{"three points", []float64{1, 2, 4}, SeriesTooShort},
		{"constant", []float64{0.5, 0.5, 0.5, 0.5, 0.5}, SeriesConstant},
		{"NaN", []float64{0.5, math.NaN(), 0.5, 0.7, 0.5}, SeriesNonFinite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Segmented(tc.ys)
			require.Equal(t, tc.want, got.Status)
			require.Equal(t, len(tc.ys), got.N)
			require.Zero(t, got.R2)
			require.Zero(t, got.SlopeChange)
		})
	}
}
