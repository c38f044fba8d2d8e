package analysis

import "math"

// KendallTau is Kendall's τ-b between two rankings given as scores of the
// same items: τ_b = (n_c − n_d) / √((n₀ − n₁)(n₀ − n₂)), with n_c and n_d the
// concordant and discordant pairs, n₀ = n(n−1)/2 and n₁, n₂ the pairs tied
// in x and in y (Kendall 1945, the tie-corrected form rank-agreement studies
// report). 0 when either ranking is all ties.
func KendallTau(x, y []float64) float64 {
	n := min(len(x), len(y))
	var nc, nd, tx, ty float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx, dy := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case dx == 0 && dy == 0:
				tx, ty = tx+1, ty+1
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				nc++
			default:
				nd++
			}
		}
	}
	n0 := float64(n*(n-1)) / 2
	den := math.Sqrt((n0 - tx) * (n0 - ty))
	if den == 0 {
		return 0
	}
	return (nc - nd) / den
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
