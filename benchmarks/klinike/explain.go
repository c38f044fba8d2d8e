package klinike

import (
	"fmt"
	"math"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/view"
)

var _ view.Explainer = Benchmark{}

// Explain is KlinikeBench's four gates (§2.2): S is the strict success
// s = D·W·A·1[H = 1] (eq. 3), and the grade is r_multi = (2D + W + A + H)/5
// (appendix C, eq. 4); in the chart mode S is D, its only gate.
func (Benchmark) Explain(sc clinic.Scores, _ *clinic.Case, set settings.Settings) view.ScoreView {
	m := sc.Metrics
	noU := view.Line("U", "–", "not defined: U is MedEvoEval's (§4, appendix C.2); the record holds 0")
	v := view.ScoreView{Scores: sc, Explained: map[string]bool{}}
	d := m[MetricD]
	v.Lines = []view.ScoreLine{view.Line("D", fmt.Sprintf("%g", d), fmt.Sprintf("1 when the diagnosis judge grades the recorded diagnosis %d: the reference or an accepted alternative (§2.2)", DiagnosisAt))}
	v.Explained[MetricD] = true
	if set.Episode.Mode == settings.Static {
		v.StrictHow = "strict: D = 1; pass: S = 1"
		v.Lines = append(v.Lines, view.Line("S", fmt.Sprintf("%.4f", sc.S), "D: the chart mode has no tools and no questions, so D is its only gate (§4)"), noU)
		v.Check = checked(d, sc.S)
		return v
	}
	g := Gates{D: d, W: m[MetricW], A: m[MetricA], H: m[MetricH]}
	raised := 0.0
	if g.H >= 1 {
		raised = 1
	}
	v.StrictHow = "strict: D = 1; pass: S = 1; grade = round(100·r_multi)"
	v.Lines = append(v.Lines,
		view.Line("W", fmt.Sprintf("%g", g.W), fmt.Sprintf("1 when every required tool was called; %.0f%% of them were (§2.2)", 100*sc.Required)),
		view.Line("A", fmt.Sprintf("%g", g.A), "1 when every must-constraint is met and no never-constraint is, by the calls that ran (§2.2, appendix B.3)"),
		view.Line("H", fmt.Sprintf("%.3f", g.H), "the share of must-ask topics the judge finds raised (§2.2)"),
		view.Line("pass@1", fmt.Sprintf("%g", m[MetricPass]), fmt.Sprintf("s = D·W·A·1[H = 1] = %g·%g·%g·%g (§2.2, eq. 3)", g.D, g.W, g.A, raised)),
		view.Line("r_multi", fmt.Sprintf("%.4f", m[MetricRMulti]), fmt.Sprintf("(2D + W + A + H)/5 = (2·%g + %g + %g + %.3f)/5 (appendix C, eq. 4)", g.D, g.W, g.A, g.H)),
		view.Line("S", fmt.Sprintf("%.4f", sc.S), "s, so that the running means and paired tests read strict pass@1"),
		noU)
	for _, k := range []string{MetricW, MetricA, MetricH, MetricPass, MetricRMulti} {
		v.Explained[k] = true
	}
	switch {
	case math.Abs(g.Strict()-sc.S) > 1e-9:
		v.Check = fmt.Sprintf("the stored gates give S = %g, not the stored %.4f", g.Strict(), sc.S)
	case math.Abs(g.RMulti()-m[MetricRMulti]) > 1e-4:
		v.Check = fmt.Sprintf("the stored gates give r_multi = %.4f, not the stored %.4f", g.RMulti(), m[MetricRMulti])
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
