package analysis

import "math"

// SeriesStatus says whether a stage-series diagnostic could be computed and,
// if not, why. Stage series are short (MedEvoEval D.5: ten stage points) and
// can be flat, so a report needs a reason where it would otherwise print NaN.
type SeriesStatus string

// The statuses of a stage-series diagnostic. Unless the status is SeriesOK
// the statistics of a result are zero, except an ADF p-value, which is 1 (no
// evidence against a unit root).
const (
	SeriesOK         SeriesStatus = "ok"
	SeriesTooShort   SeriesStatus = "too_short"   // too few points for the model's residual degrees of freedom
	SeriesConstant   SeriesStatus = "constant"    // every point within DiffResolution of the first: nothing to test
	SeriesNonFinite  SeriesStatus = "non_finite"  // a NaN or ±Inf among the points
	SeriesCollinear  SeriesStatus = "collinear"   // one regressor is (almost) a combination of the others
	SeriesPerfectFit SeriesStatus = "perfect_fit" // residuals vanish, so the t statistic is undefined
)

// ADFDefaultLags asks ADF for its default lag order.
const ADFDefaultLags = -1

// ADFResult is an augmented Dickey–Fuller unit-root test of one series.
type ADFResult struct {
	Status SeriesStatus `json:"status"`
	Trend  bool         `json:"trend"` // the regression has a linear trend besides the constant
	N      int          `json:"n"`     // points in the series
	Lags   int          `json:"lags"`  // p: lagged differences in the regression
	Obs    int          `json:"obs"`   // T = N − 1 − p: observations in the regression
	Stat   float64      `json:"stat"`  // τ, the t statistic of the lagged level
	P      float64      `json:"p"`     // MacKinnon (1994) asymptotic p-value of τ
	Crit1  float64      `json:"crit_1pct"`
	Crit5  float64      `json:"crit_5pct"`
	Crit10 float64      `json:"crit_10pct"`
	// Reject5 is τ < Crit5: the unit root is rejected at 5% (the series
	// looks stationary), judged by the finite-sample critical value.
	Reject5 bool `json:"reject_5pct"`
}

// ADF is the augmented Dickey–Fuller test that MedEvoEval uses to summarize
// the stationarity of stage series (C.6; descriptive only, D.5). It fits by
// ordinary least squares
//
//	Δy_t = α + [β·t] + γ·y_{t−1} + δ_1·Δy_{t−1} + … + δ_p·Δy_{t−p} + ε_t
//
// over t = p+1 … n−1 (T = n−1−p observations; the trend term only when trend
// is set) and returns τ = γ̂ / se(γ̂); the null hypothesis is a unit root
// (γ = 0), rejected by a large negative τ.
//
// lags is p; ADFDefaultLags (any negative value) picks ⌊(n−1)^{1/3}⌋ (the
// growth bound of Said and Dickey 1984, and the default of R's
// tseries::adf.test), lowered until the regression keeps ten residual
// degrees of freedom. For a ten-point stage series that is p = 0, the plain
// Dickey–Fuller regression: each lag costs two degrees of freedom there, and
// with p = 2 the test rejects white noise about as rarely as a random walk
// (7% and 7% in seeded simulations), while with p = 0 it holds its 5% size
// and rejects white noise 35% of the time. Series of 15 points or more (16
// with the trend) get lags. Any p must leave the regression three residual
// degrees of freedom.
//
// P comes from MacKinnon's (1994) asymptotic response surface; Crit1/5/10
// and Reject5 from MacKinnon's (2010) finite-sample surface at T. This is
// what statsmodels' adfuller(y, maxlag=p, autolag=None, regression="c" or
// "ct") reports. In short series P overstates the evidence: with T = 9, P
// falls below 0.05 from τ = −2.86 on, while the finite-sample 5% critical
// value is −3.29. For stage series read Reject5, not P < 0.05.
//
// A series that is too short for p, constant, non-finite, or whose regression
// is collinear or fits exactly gets the matching status instead of NaN.
func ADF(ys []float64, lags int, trend bool) ADFResult {
	r := ADFResult{Trend: trend, N: len(ys), P: 1}
	det := 1 // deterministic regressors besides γ: the constant, and the trend
	if trend {
		det = 2
	}
	if lags < 0 {
		lags = adfDefaultLags(len(ys), det)
	}
	r.Lags = lags
	switch {
	case !allFinite(ys):
		r.Status = SeriesNonFinite
		return r
	case len(ys)-1-lags-(det+1+lags) < adfMinDoF:
		r.Status = SeriesTooShort
		return r
	case isConstant(ys):
		r.Status = SeriesConstant
		return r
	}
	n := len(ys)
	r.Obs = n - 1 - lags
	dy := make([]float64, r.Obs)
	cols := make([][]float64, det+1+lags) // constant, [trend], y_{t−1}, Δy_{t−1} … Δy_{t−p}
	for j := range cols {
		cols[j] = make([]float64, r.Obs)
	}
	level := det // column of y_{t−1}, whose coefficient is γ
	for i := range r.Obs {
		t := lags + 1 + i
		dy[i] = ys[t] - ys[t-1]
		cols[0][i] = 1
		if trend {
			cols[1][i] = float64(t)
		}
		cols[level][i] = ys[t-1]
		for l := 1; l <= lags; l++ {
			cols[level+l][i] = ys[t-l] - ys[t-l-1]
		}
	}
	fit, status := ols(cols, dy)
	if status != SeriesOK {
		r.Status = status
		return r
	}
	// Residuals below DiffResolution relative to the differences themselves
	// are rounding noise of an exact fit (a straight line, say): s² would be
	// noise too and τ meaningless.
	if fit.sse <= DiffResolution*DiffResolution*sumSquares(dy) {
		r.Status = SeriesPerfectFit
		return r
	}
	r.Status = SeriesOK
	r.Stat = fit.beta[level] / fit.se[level]
	r.P = mackinnonP(r.Stat, trend)
	crit := mackinnonCrit(r.Obs, trend)
	r.Crit1, r.Crit5, r.Crit10 = crit[0], crit[1], crit[2]
	r.Reject5 = r.Stat < r.Crit5
	return r
}

// adfMinDoF is the fewest residual degrees of freedom an ADF regression may
// have. With fewer, τ no longer follows MacKinnon's surfaces: in seeded
// simulations a 5% test of a random walk with a constant rejects 11% of the
// time with one (n = 4), 6% with two and 5% with three.
const adfMinDoF = 3

// adfLagDoF is the residual degrees of freedom the default lag order keeps:
// below about ten, every lag costs more power than it buys (see ADF).
const adfLagDoF = 10

// adfDefaultLags is ⌊(n−1)^{1/3}⌋ in integers (so 28 points give 3, where a
// floating cube root may give 2.999…), lowered until the n−1−p observations
// leave adfLagDoF residual degrees of freedom after det+1+p coefficients.
func adfDefaultLags(n, det int) int {
	p := 0
	for (p+1)*(p+1)*(p+1) <= n-1 {
		p++
	}
	for p > 0 && n-1-p-(det+1+p) < adfLagDoF {
		p--
	}
	return p
}

// mackinnonP is MacKinnon's (1994) approximate asymptotic p-value of a
// Dickey–Fuller τ with one variable: Φ of a polynomial in τ, quadratic below
// τ* and cubic above, 0 below τ_min and 1 above τ_max. Coefficients from
// MacKinnon, "Approximate asymptotic distribution functions for unit-root and
// cointegration tests", JBES 12 (1994), N = 1, as statsmodels
// (tsa/adfvalues.py: tau_c_smallp/largep, tau_ct_smallp/largep with their
// scalings) carries them. Check: τ = −2.86154, the asymptotic 5% critical
// value below, gives Φ(−1.6428) = 0.050.
func mackinnonP(tau float64, trend bool) float64 {
	// constant only: τ*, τ_min, τ_max, small-p and large-p coefficients
	star, lo, hi := -1.61, -18.83, 2.74
	small := []float64{2.1659, 1.4412, 0.038269}
	large := []float64{1.7339, 0.93202, -0.12745, -0.010368}
	if trend {
		star, lo, hi = -2.89, -16.18, 0.7
		small = []float64{3.2512, 1.6047, 0.049588}
		large = []float64{2.5261, 0.61654, -0.37956, -0.060285}
	}
	switch {
	case tau > hi:
		return 1
	case tau < lo:
		return 0
	case tau <= star:
		return normalCDF(polyval(small, tau))
	}
	return normalCDF(polyval(large, tau))
}

// mackinnonCrit is the 1%, 5% and 10% critical value of τ for T regression
// observations: τ(T) = β∞ + β1/T + β2/T² + β3/T³ from MacKinnon, "Critical
// values for cointegration tests", Queen's Economics Department Working Paper
// 1227 (2010), N = 1; the constant case has a β3 term at 1% and 5% too
// (−79.433, −40.040), which matters at T ≈ 7. statsmodels' mackinnoncrit
// evaluates the same surface at the regression's observation count. As T grows the values tend to β∞: −3.43,
// −2.86, −2.57 with a constant; −3.96, −3.41, −3.13 with a trend.
func mackinnonCrit(obs int, trend bool) [3]float64 {
	surface := [3][]float64{
		{-3.43035, -6.5393, -16.786, -79.433},
		{-2.86154, -2.8903, -4.234, -40.040},
		{-2.56677, -1.5384, -2.809, 0},
	}
	if trend {
		surface = [3][]float64{
			{-3.95877, -9.0531, -28.428, -134.155},
			{-3.41049, -4.3904, -9.036, -45.374},
			{-3.12705, -2.5856, -3.925, -22.380},
		}
	}
	var out [3]float64
	for i, c := range surface {
		out[i] = polyval(c, 1/float64(obs))
	}
	return out
}

// polyval is c[0] + c[1]·x + c[2]·x² + …
func polyval(c []float64, x float64) float64 {
	v := 0.0
	for i := len(c) - 1; i >= 0; i-- {
		v = v*x + c[i]
	}
	return v
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// LinearFit is a least-squares line through a series against its index.
type LinearFit struct {
	Intercept float64 `json:"intercept"` // fitted value at index 0
	Slope     float64 `json:"slope"`     // change per stage
	SSE       float64 `json:"sse"`
	R2        float64 `json:"r2"`
}

// SegmentedFit is a segmented regression of a series against its index i =
// 0 … n−1 with one breakpoint k, as the continuous "hinge" model
//
//	y_i = a + b·i + c·max(0, i − k) + ε_i
//
// so the two segments meet at k: the slope is b up to k and b + c after it.
type SegmentedFit struct {
	Status      SeriesStatus `json:"status"`
	N           int          `json:"n"`
	Break       int          `json:"break"`        // k, the index of the stage where the slope changes
	Intercept   float64      `json:"intercept"`    // a, the fitted value at index 0
	SlopeBefore float64      `json:"slope_before"` // b
	SlopeAfter  float64      `json:"slope_after"`  // b + c
	SlopeChange float64      `json:"slope_change"` // c
	SSE         float64      `json:"sse"`
	R2          float64      `json:"r2"`     // 1 − SSE/TSS
	Linear      LinearFit    `json:"linear"` // the fit without a breakpoint, for comparison
}

// Segmented is the segmented regression MedEvoEval uses to describe slope
// changes or plateaus of stage series (C.6; descriptive only, D.5). The
// breakpoint is searched over the interior indices k = 1 … n−2, so each
// segment spans at least two stages, and is the k with the least SSE; among
// fits within 1e-12·TSS of the least, the earliest k, so that a straight line
// (every k fits with c = 0) reports k = 1 and no slope change. Because the
// breakpoint is searched, comparing SSE with Linear's by an F test would
// overstate the evidence for a change.
//
// Fewer than four points (no residual degree of freedom for a, b, c), a
// constant series (R² undefined) or a non-finite point give the matching
// status instead of a fit.
func Segmented(ys []float64) SegmentedFit {
	n := len(ys)
	r := SegmentedFit{N: n}
	switch {
	case !allFinite(ys):
		r.Status = SeriesNonFinite
		return r
	case n < 4:
		r.Status = SeriesTooShort
		return r
	case isConstant(ys):
		r.Status = SeriesConstant
		return r
	}
	mean := Mean(ys)
	tss := 0.0
	for _, y := range ys {
		tss += (y - mean) * (y - mean)
	}
	one, index := make([]float64, n), make([]float64, n)
	for i := range n {
		one[i], index[i] = 1, float64(i)
	}
	// With n ≥ 4 the columns 1 and i are independent, and so are 1, i and
	// max(0, i−k) for every interior k (two points on or before k, one after
	// it): ols cannot report collinear here, so its status is not checked.
	lin, _ := ols([][]float64{one, index}, ys)
	r.Linear = LinearFit{Intercept: lin.beta[0], Slope: lin.beta[1], SSE: lin.sse, R2: 1 - lin.sse/tss}
	best := math.Inf(1)
	for k := 1; k <= n-2; k++ {
		hinge := make([]float64, n)
		for i := range hinge {
			hinge[i] = math.Max(0, float64(i-k))
		}
		fit, _ := ols([][]float64{one, index, hinge}, ys) // never collinear, as above
		if fit.sse < best-1e-12*tss {
			best = fit.sse
			r.Break, r.Intercept, r.SlopeBefore, r.SlopeChange = k, fit.beta[0], fit.beta[1], fit.beta[2]
			r.SSE = fit.sse
		}
	}
	r.Status = SeriesOK
	r.SlopeAfter = r.SlopeBefore + r.SlopeChange
	r.R2 = 1 - r.SSE/tss
	return r
}

// olsFit is an ordinary least-squares fit.
type olsFit struct {
	beta []float64 // coefficients, one per column
	se   []float64 // standard errors √(s²·(X'X)⁻¹_jj), s² = SSE/(n − k)
	sse  float64   // sum of squared residuals
}

// collinearTolerance bounds 1 − R² of a regressor on the regressors before
// it: closer to 1 than this, its coefficient is not identified.
const collinearTolerance = 1e-10

// ols regresses y on the columns cols (each of len(y)) by the normal
// equations. Columns are scaled to unit length first, so X'X has a unit
// diagonal and each Gauss–Jordan pivot is 1 − R² of that column on the
// columns before it; a pivot below collinearTolerance means collinear. The
// caller guarantees more rows than columns.
func ols(cols [][]float64, y []float64) (olsFit, SeriesStatus) {
	k, n := len(cols), len(y)
	scale := make([]float64, k)
	for j, c := range cols {
		scale[j] = math.Sqrt(sumSquares(c))
		if scale[j] == 0 {
			return olsFit{}, SeriesCollinear
		}
	}
	// a = X̃'X̃ and inv its inverse, xy = X̃'y, with X̃ the scaled columns.
	a, inv, xy := make([][]float64, k), make([][]float64, k), make([]float64, k)
	for i := range k {
		a[i], inv[i] = make([]float64, k), make([]float64, k)
		inv[i][i] = 1
		for j := range k {
			for t := range n {
				a[i][j] += cols[i][t] * cols[j][t]
			}
			a[i][j] /= scale[i] * scale[j]
		}
		for t := range n {
			xy[i] += cols[i][t] * y[t]
		}
		xy[i] /= scale[i]
	}
	// X'X is symmetric positive semi-definite: Gauss–Jordan needs no row
	// exchanges, and its pivots are the Schur complements described above.
	for j := range k {
		p := a[j][j]
		if p < collinearTolerance {
			return olsFit{}, SeriesCollinear
		}
		for c := range k {
			a[j][c] /= p
			inv[j][c] /= p
		}
		for r := range k {
			if f := a[r][j]; r != j && f != 0 {
				for c := range k {
					a[r][c] -= f * a[j][c]
					inv[r][c] -= f * inv[j][c]
				}
			}
		}
	}
	fit := olsFit{beta: make([]float64, k), se: make([]float64, k)}
	for i := range k {
		for j := range k {
			fit.beta[i] += inv[i][j] * xy[j]
		}
		fit.beta[i] /= scale[i]
	}
	for t := range n {
		e := y[t]
		for j := range k {
			e -= fit.beta[j] * cols[j][t]
		}
		fit.sse += e * e
	}
	s2 := fit.sse / float64(n-k)
	for j := range k {
		fit.se[j] = math.Sqrt(s2*inv[j][j]) / scale[j]
	}
	return fit, SeriesOK
}

func sumSquares(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x * x
	}
	return s
}

func allFinite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// isConstant reports whether every point is within DiffResolution of the
// first (true for no points).
func isConstant(xs []float64) bool {
	for _, x := range xs {
		if math.Abs(x-xs[0]) > DiffResolution {
			return false
		}
	}
	return true
}
