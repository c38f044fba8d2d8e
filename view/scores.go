package view

import (
	"fmt"
	"math"

	"github.com/clinevo/clinevo/bench/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// The episode page explains the scores of the profiles other than MedEvoEval
// by their own papers' definitions, with the stored numbers, and checks the
// headline S against them.

// noU is the line of U for a profile that does not define it.
var noU = ScoreLine{"U", "–", "not defined: U is MedEvoEval's (§4, appendix C.2); the record holds 0"}

// explainKlinike is KlinikeBench's four gates (§2.2): S is the strict success
// s = D·W·A·1[H = 1] (eq. 3), and the grade is r_multi = (2D + W + A + H)/5
// (appendix C, eq. 4); in the chart mode S is D, its only gate.
func explainKlinike(sc clinic.Scores, set settings.Settings) ScoreView {
	m := sc.Metrics
	v := ScoreView{Scores: sc, Explained: map[string]bool{}}
	d := m[klinike.MetricD]
	v.Lines = []ScoreLine{{"D", fmt.Sprintf("%g", d), fmt.Sprintf("1 when the diagnosis judge grades the recorded diagnosis %d or more (§2.2)", klinike.DiagnosisAt)}}
	v.Explained[klinike.MetricD] = true
	if set.Episode.Mode == settings.Static {
		v.StrictHow = "strict: D = 1; pass: S = 1"
		v.Lines = append(v.Lines, ScoreLine{"S", fmt.Sprintf("%.4f", sc.S), "D: the chart mode has no tools and no questions, so D is its only gate (§4)"}, noU)
		v.Check = checked(d, sc.S)
		return v
	}
	g := klinike.Gates{D: d, W: m[klinike.MetricW], A: m[klinike.MetricA], H: m[klinike.MetricH]}
	v.StrictHow = "strict: D = 1; pass: S = 1; grade = round(100·r_multi)"
	v.Lines = append(v.Lines,
		ScoreLine{"W", fmt.Sprintf("%g", g.W), fmt.Sprintf("1 when every required tool was called; %.0f%% of them were (§2.2)", 100*sc.Required)},
		ScoreLine{"A", fmt.Sprintf("%g", g.A), "1 when every must-constraint is met and no never-constraint or forbidden tool is (§2.2, appendix B.3)"},
		ScoreLine{"H", fmt.Sprintf("%.3f", g.H), "the share of must-ask topics the judge finds raised (§2.2)"},
		ScoreLine{"pass@1", fmt.Sprintf("%g", m[klinike.MetricPass]), fmt.Sprintf("s = D·W·A·1[H = 1] = %g·%g·%g·%g (§2.2, eq. 3)", g.D, g.W, g.A, b2f(g.H >= 1))},
		ScoreLine{"r_multi", fmt.Sprintf("%.4f", m[klinike.MetricRMulti]), fmt.Sprintf("(2D + W + A + H)/5 = (2·%g + %g + %g + %.3f)/5 (appendix C, eq. 4)", g.D, g.W, g.A, g.H)},
		ScoreLine{"S", fmt.Sprintf("%.4f", sc.S), "s, so that the running means and paired tests read strict pass@1"},
		noU)
	for _, k := range []string{klinike.MetricW, klinike.MetricA, klinike.MetricH, klinike.MetricPass, klinike.MetricRMulti} {
		v.Explained[k] = true
	}
	switch {
	case math.Abs(g.Strict()-sc.S) > 1e-9:
		v.Check = fmt.Sprintf("the stored gates give S = %g, not the stored %.4f", g.Strict(), sc.S)
	case math.Abs(g.RMulti()-m[klinike.MetricRMulti]) > 1e-4:
		v.Check = fmt.Sprintf("the stored gates give r_multi = %.4f, not the stored %.4f", g.RMulti(), m[klinike.MetricRMulti])
	default:
		v.Check = "S and r_multi follow from the stored gates by the formulas above"
	}
	return v
}

// checked says whether the stored S is the one the formula gives.
func checked(want, s float64) string {
	if math.Abs(want-s) < 1e-9 {
		return "S follows from the stored gates by the formula above"
	}
	return fmt.Sprintf("the stored gates give S = %g, not the stored %.4f", want, s)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
