package medinquire

import (
	"fmt"
	"math"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/view"
)

var _ view.Explainer = Benchmark{}

// Explain is EvoClinician's Med-Inquire (§3, §3.6): the judge grades
// the submitted diagnosis 0–100, S = grade/100, and C adds the base cost of
// every turn to the price of every ordered test.
func (Benchmark) Explain(sc clinic.Scores, _ *clinic.Case, set settings.Settings) view.ScoreView {
	v := view.ScoreView{Scores: sc, StrictHow: fmt.Sprintf("strict: grade 100; pass: S ≥ %g", set.Scoring.PassAt)}
	base := set.Episode.BaseTurnCost
	v.Lines = []view.ScoreLine{
		view.Line("grade", fmt.Sprint(sc.Grade), "the judge's 0–100 grade of the submitted diagnosis (EvoClinician §3)"),
		view.Line("S", fmt.Sprintf("%.4f", sc.S), fmt.Sprintf("S = grade/100 = %d/100, clinevo's scale for the running means S̄₁:t", sc.Grade)),
		view.Line("C", fmt.Sprintf("%.2f USD", sc.Cost), fmt.Sprintf("C = Σ c(a_t) = base·T + test prices = %g·%d + %.2f (EvoClinician §3.6)", base, sc.T, sc.Cost-base*float64(sc.T))),
		view.Line("T", fmt.Sprint(sc.T), "every turn, the submission included (EvoClinician §3.6)"),
		view.Line("U", "–", "not defined: U is MedEvoEval's (§4, appendix C.2) and needs a test budget Emax; the record holds 0"),
	}
	switch {
	case math.Abs(sc.S-float64(sc.Grade)/100) > 1e-9:
		v.Check = fmt.Sprintf("the stored S %.4f is not grade/100 = %.4f", sc.S, float64(sc.Grade)/100)
	case sc.Cost < base*float64(sc.T)-1e-9:
		v.Check = fmt.Sprintf("the stored C %.2f is below the base cost of its %d turns", sc.Cost, sc.T)
	default:
		v.Check = "S = grade/100 and C ≥ base·T hold for the stored numbers"
	}
	return v
}
