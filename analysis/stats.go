package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// WilcoxonResult is a Wilcoxon signed-rank test of paired differences.
type WilcoxonResult struct {
	N      int     `json:"n"`       // non-zero differences
	Zeros  int     `json:"zeros"`   // dropped zero differences
	WPlus  float64 `json:"w_plus"`  // sum of ranks of positive differences (V)
	WMinus float64 `json:"w_minus"` // sum of ranks of negative differences
	Z      float64 `json:"z"`       // normal approximation (0 when exact)
	P      float64 `json:"p"`       // two-sided
	Exact  bool    `json:"exact"`
}

// ExactMaxN is the largest sample tested with the exact null distribution.
const ExactMaxN = 25

// DiffResolution is the resolution at which Wilcoxon compares paired
// differences. Scores are sums and products of fractions such as 0.1 or 0.75,
// so two cases that differ by the same amount on paper can differ by a few
// units in the last place in float64 (0.1+0.2−0.3 is 5.6e-17, not 0); no
// score is meaningful below 1e-9.
const DiffResolution = 1e-9

// Wilcoxon is the Wilcoxon signed-rank test of paired case-level differences
// d_i = Z_i(B) − Z_i(A) (MedEvoEval C.6: continuous and ordinal metrics, among
// them S, U, T, E, R and the diagnosis grade). Each difference is first
// rounded to the nearest multiple of DiffResolution, so that zeros and ties
// are found on the rounded values, not by exact float equality. Zero
// differences are dropped (Wilcoxon's method); tied absolute values get
// average ranks. With at most ExactMaxN differences and no ties the p-value
// comes from the exact distribution of W+; otherwise from the normal
// approximation with the tie correction of the variance and a continuity
// correction of 0.5.
func Wilcoxon(diffs []float64) WilcoxonResult {
	var r WilcoxonResult
	var nz []float64 // differences in units of DiffResolution: whole numbers, compared exactly
	for _, d := range diffs {
		q := math.Round(d / DiffResolution)
		if q == 0 {
			r.Zeros++
			continue
		}
		nz = append(nz, q)
	}
	r.N = len(nz)
	if r.N == 0 {
		r.P = 1
		return r
	}
	idx := make([]int, r.N)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(nz[idx[a]]) < math.Abs(nz[idx[b]]) })
	ranks := make([]float64, r.N)
	var tieTerm float64
	ties := false
	for i := 0; i < r.N; {
		j := i
		for j+1 < r.N && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		avg := float64(i+j+2) / 2
		for k := i; k <= j; k++ {
			ranks[idx[k]] = avg
		}
		if t := float64(j - i + 1); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j + 1
	}
	for i, d := range nz {
		if d > 0 {
			r.WPlus += ranks[i]
		} else {
			r.WMinus += ranks[i]
		}
	}
	n := float64(r.N)
	if r.N <= ExactMaxN && !ties {
		r.Exact = true
		r.P = exactSignedRankP(r.N, r.WPlus)
		return r
	}
	mean := n * (n + 1) / 4
	variance := n*(n+1)*(2*n+1)/24 - tieTerm/48
	if variance <= 0 {
		r.P = 1
		return r
	}
	dev := math.Abs(r.WPlus-mean) - 0.5
	if dev < 0 {
		dev = 0
	}
	r.Z = math.Copysign(dev/math.Sqrt(variance), r.WPlus-mean)
	r.P = math.Min(1, 2*normalUpper(math.Abs(r.Z)))
	return r
}

// exactSignedRankP is the two-sided exact p-value of W+ = w with n untied ranks.
func exactSignedRankP(n int, w float64) float64 {
	max := n * (n + 1) / 2
	counts := make([]float64, max+1) // counts[s] = subsets of {1..n} with sum s
	counts[0] = 1
	for k := 1; k <= n; k++ {
		for s := max; s >= k; s-- {
			counts[s] += counts[s-k]
		}
	}
	total := math.Pow(2, float64(n))
	lower, upper := 0.0, 0.0
	for s, c := range counts {
		if float64(s) <= w {
			lower += c
		}
		if float64(s) >= w {
			upper += c
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/total)
}

func normalUpper(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// McNemarResult is an exact McNemar test of one paired binary outcome.
type McNemarResult struct {
	B int     `json:"b"` // pairs where the outcome holds in A and not in B
	C int     `json:"c"` // pairs where it holds in B and not in A
	P float64 `json:"p"` // two-sided, McNemarExact(B, C)
}

// McNemarPaired is the exact McNemar test of any paired binary outcome
// (MedEvoEval C.6: strict correctness and pass/fail status; D.4 also the
// non-dangerous diagnosis): a[i] and b[i] are the outcomes of the same case
// under conditions A and B. Concordant pairs carry no information and are
// not counted. It returns an error when the slices differ in length, since
// then they cannot be pairs.
func McNemarPaired(a, b []bool) (McNemarResult, error) {
	if len(a) != len(b) {
		return McNemarResult{}, fmt.Errorf("mcnemar: %d outcomes for A and %d for B: expected one pair per case", len(a), len(b))
	}
	var r McNemarResult
	for i := range a {
		switch {
		case a[i] && !b[i]:
			r.B++
		case !a[i] && b[i]:
			r.C++
		}
	}
	r.P = McNemarExact(r.B, r.C)
	return r, nil
}

// McNemarExact is the exact two-sided McNemar test of paired binary outcomes
// (MedEvoEval C.6): b pairs changed one way, c the other; a binomial test of
// b against b+c at 1/2, p = min(1, 2·P(X ≤ min(b, c))).
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	cdf := 0.0
	for i := 0; i <= k; i++ {
		cdf += binom(n, i)
	}
	return math.Min(1, 2*cdf/math.Pow(2, float64(n)))
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// Interval is a confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// BootstrapMean is a seeded percentile bootstrap 95% interval of the mean of
// paired differences (or of any sample), from b resamples.
func BootstrapMean(xs []float64, b int, seed uint64) Interval {
	if len(xs) == 0 {
		return Interval{}
	}
	r := rand.New(rand.NewPCG(seed, uint64(len(xs))))
	means := make([]float64, b)
	for i := range means {
		s := 0.0
		for range xs {
			s += xs[r.IntN(len(xs))]
		}
		means[i] = s / float64(len(xs))
	}
	return percentile95(means)
}

// BootstrapDiff is a seeded percentile bootstrap 95% interval of mean(b) −
// mean(a) for two independent samples (runs that share no case): each
// resample draws len(a) values from a and len(b) from b, with replacement.
// Either sample empty gives the zero interval.
func BootstrapDiff(a, b []float64, n int, seed uint64) Interval {
	if len(a) == 0 || len(b) == 0 {
		return Interval{}
	}
	r := rand.New(rand.NewPCG(seed, uint64(len(a))<<32|uint64(len(b))))
	draw := func(xs []float64) float64 {
		s := 0.0
		for range xs {
			s += xs[r.IntN(len(xs))]
		}
		return s / float64(len(xs))
	}
	diffs := make([]float64, n)
	for i := range diffs {
		diffs[i] = draw(b) - draw(a)
	}
	return percentile95(diffs)
}

// percentile95 is the 2.5% and 97.5% percentiles of resampled statistics
// (sorted in place), taken at the nearest rank.
func percentile95(xs []float64) Interval {
	if len(xs) == 0 {
		return Interval{}
	}
	sort.Float64s(xs)
	q := func(p float64) float64 { return xs[int(math.Round(p*float64(len(xs)-1)))] }
	return Interval{Low: q(0.025), High: q(0.975)}
}

// MannKendallResult is a Mann–Kendall trend test.
type MannKendallResult struct {
	S   int     `json:"s"`
	Var float64 `json:"var"`
	Z   float64 `json:"z"`
	P   float64 `json:"p"` // two-sided
}

// MannKendall tests a series for a monotonic trend, with the tie correction of
// the variance and a continuity correction of 1 (MedEvoEval C.6). Values are
// compared after rounding to DiffResolution, so stage means that differ only
// by floating-point noise are ties.
func MannKendall(xs []float64) MannKendallResult {
	n := len(xs)
	xs = roundAll(xs)
	var r MannKendallResult
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch {
			case xs[j] > xs[i]:
				r.S++
			case xs[j] < xs[i]:
				r.S--
			}
		}
	}
	groups := map[float64]int{}
	for _, x := range xs {
		groups[x]++
	}
	tie := 0.0
	for _, t := range groups {
		tf := float64(t)
		tie += tf * (tf - 1) * (2*tf + 5)
	}
	nf := float64(n)
	r.Var = (nf*(nf-1)*(2*nf+5) - tie) / 18
	if r.Var <= 0 {
		r.P = 1
		return r
	}
	switch {
	case r.S > 0:
		r.Z = float64(r.S-1) / math.Sqrt(r.Var)
	case r.S < 0:
		r.Z = float64(r.S+1) / math.Sqrt(r.Var)
	}
	r.P = math.Min(1, 2*normalUpper(math.Abs(r.Z)))
	return r
}

// CUSUMResult is the cumulative sum of deviations from the series mean.
type CUSUMResult struct {
	Values []float64 `json:"values"`
	Max    float64   `json:"max_abs"`
	At     int       `json:"at"` // index of the largest |value|: the most likely change point is after it
}

// CUSUM computes the cumulative sums of deviations from the mean.
func CUSUM(xs []float64) CUSUMResult {
	var r CUSUMResult
	if len(xs) == 0 {
		return r
	}
	mean := Mean(xs)
	s := 0.0
	for i, x := range xs {
		s += x - mean
		r.Values = append(r.Values, s)
		if math.Abs(s) > r.Max+1e-12 {
			r.Max, r.At = math.Abs(s), i
		}
	}
	return r
}

// Mean is the arithmetic mean (0 for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// roundAll returns xs rounded to DiffResolution.
func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x/DiffResolution) * DiffResolution
	}
	return out
}
