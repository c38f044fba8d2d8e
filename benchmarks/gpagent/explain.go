package gpagent

import (
	"fmt"
	"math"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/view"
)

var _ view.Explainer = Benchmark{}

// Explain is GPAgentBench (§4.2, appendix C.2 and C.6) with clinevo's
// headline S (Score): 0 on a wrong pathway, (1 + dest)/2 on a referral,
// (w_diag·Dx + w_treat·Tx)/(w_diag + w_treat) on a treated case.
func (Benchmark) Explain(sc clinic.Scores, _ *clinic.Case, set settings.Settings) view.ScoreView {
	v := view.ScoreView{Scores: sc, StrictHow: fmt.Sprintf("strict: S = 1; pass: S ≥ %g; grade = round(100·S)", set.Scoring.PassAt), Explained: map[string]bool{}}
	m := sc.Metrics
	line := func(key, name, how string) {
		if x, ok := m[key]; ok {
			v.Lines = append(v.Lines, view.Line(name, fmt.Sprintf("%.3f", x), how))
			v.Explained[key] = true
		}
	}
	line(MetricMgmt, "Mgmt", "1 when the terminal action matches the case's label (treat: manageable, refer: needs referral); a timeout is 0 (GPAgentBench C.2)")
	line(MetricMissRefer, "Miss-Refer", "1 − Mgmt on a case needing referral (C.2)")
	line(MetricMissGP, "Miss-GP", "1 − Mgmt on a manageable case (C.2)")
	line(MetricDx, "Dx", "the Dx judge on the committed diagnosis: 0 or 1 (C.2); 0 on a referral, which names none (averaged over all cases, §5 Table 1)")
	line(MetricTx, "Tx", "the Tx judge on plan and follow-up: 0, 0.5 or 1 (C.2); 0 when not treated")
	line(MetricDxCommitted, "Dx (committed)", "Dx on an episode not ending in refer: clinevo's secondary figure")
	line(MetricTxCommitted, "Tx (committed)", "Tx on an episode not ending in refer: clinevo's secondary figure")
	line(MetricDest, "Dest", "referred to one of the case's destinations, by string match after normalisation (§5)")
	line(analysis.MetricReward, "reward", fmt.Sprintf("r = w_diag·Dx + w_treat·Tx = %g·%.0f + %g·%g (Table 7, appendix C.6)", WDiag, m[MetricDx], WTreat, m[MetricTx]))
	line(analysis.MetricSafetyCost, "C_safety", "1[Mgmt wrong] (§4.2)")
	mgmt, labelled := m[MetricMgmt]
	_, hasDx := m[MetricDx]
	_, hasTx := m[MetricTx]
	// Tx is scored where the corpus has a treatment reference. A record
	// without the referred metric is from before Dx was defined on every
	// case, when Dx was absent exactly on a referral.
	right, referred := !labelled || mgmt == 1, !hasDx
	if r, ok := m[MetricReferred]; ok {
		referred = r == 1
	}
	want := HeadlineS(right, referred, hasTx, m[MetricDx], m[MetricTx], m[MetricDest])
	var how string
	switch {
	case !right:
		how = "0: the wrong pathway (C_safety ≤ τ_safety = 0 of Table 7, taken as hard)"
	case referred:
		how = fmt.Sprintf("(1 + Dest)/2 = (1 + %g)/2 on a referral", m[MetricDest])
	case hasTx:
		how = fmt.Sprintf("r/(w_diag + w_treat) = (%g·%g + %g·%g)/%g on a treated case", WDiag, m[MetricDx], WTreat, m[MetricTx], WDiag+WTreat)
	default:
		how = "Dx: the corpus has no treatment reference"
	}
	v.Lines = append(v.Lines, view.Line("S", fmt.Sprintf("%.4f", sc.S), how+"; clinevo's headline, not a number of the paper"),
		view.Line("U", "–", "not defined: U is MedEvoEval's (§4, appendix C.2); the record holds 0"))
	switch {
	case !labelled:
		v.Check = "the case has no referral label: Mgmt and S's pathway part are not scored, and S is not checked"
	case math.Abs(want-sc.S) < 1e-4:
		v.Check = "S follows from the stored metrics by the formula above"
	default:
		v.Check = fmt.Sprintf("the stored metrics give S = %.4f, not the stored %.4f", want, sc.S)
	}
	return v
}
