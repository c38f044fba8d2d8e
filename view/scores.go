package view

import (
	"fmt"
	"math"

	"github.com/clinevo/clinevo/bench/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// The episode page explains the scores of the profiles other than MedEvoEval
// by their own papers' definitions, with the stored numbers, and checks the
// headline S against them.

// noU is the line of U for a profile that does not define it.
var noU = ScoreLine{"U", "–", "not defined: U is MedEvoEval's (§4, appendix C.2); the record holds 0"}

// explainGP is GPAgentBench (§4.2, appendix C.2 and C.6) with clinevo's
// headline S (gpagent.Score): 0 on a wrong pathway, (1 + dest)/2 on a
// referral, (w_diag·Dx + w_treat·Tx)/(w_diag + w_treat) on a treated case.
func explainGP(sc clinic.Scores, set settings.Settings) ScoreView {
	v := ScoreView{Scores: sc, StrictHow: fmt.Sprintf("strict: S = 1; pass: S ≥ %g; grade = round(100·S)", set.Scoring.PassAt), Explained: map[string]bool{}}
	m := sc.Metrics
	line := func(key, name, how string) {
		if x, ok := m[key]; ok {
			v.Lines = append(v.Lines, ScoreLine{name, fmt.Sprintf("%.3f", x), how})
			v.Explained[key] = true
		}
	}
	line(gpagent.MetricMgmt, "Mgmt", "1 when the terminal action matches the case's label (treat: manageable, refer: needs referral); a timeout is 0 (GPAgentBench C.2)")
	line(gpagent.MetricMissRefer, "Miss-Refer", "1 − Mgmt on a case needing referral (C.2)")
	line(gpagent.MetricMissGP, "Miss-GP", "1 − Mgmt on a manageable case (C.2)")
	line(gpagent.MetricDx, "Dx", "the Dx judge on the committed diagnosis: 0 or 1 (C.2); not scored on a referral")
	line(gpagent.MetricTx, "Tx", "the Tx judge on plan and follow-up: 0, 0.5 or 1 (C.2)")
	line(gpagent.MetricDest, "Dest", "referred to one of the case's destinations, by string match after normalisation (§5)")
	line(clinic.MetricReward, "reward", fmt.Sprintf("r = w_diag·Dx + w_treat·Tx = %g·%.0f + %g·%g (Table 7, appendix C.6)", gpagent.WDiag, m[gpagent.MetricDx], gpagent.WTreat, m[gpagent.MetricTx]))
	line(clinic.MetricSafetyCost, "C_safety", "1[Mgmt wrong] (§4.2)")
	mgmt, labelled := m[gpagent.MetricMgmt]
	_, hasDx := m[gpagent.MetricDx]
	_, hasTx := m[gpagent.MetricTx]
	// Dx is scored on every consultation but a referral; Tx where the corpus
	// has a treatment reference.
	right, referred := !labelled || mgmt == 1, !hasDx
	want := gpagent.HeadlineS(right, referred, hasTx, m[gpagent.MetricDx], m[gpagent.MetricTx], m[gpagent.MetricDest])
	var how string
	switch {
	case !right:
		how = "0: the wrong pathway (C_safety ≤ τ_safety = 0 of Table 7, taken as hard)"
	case referred:
		how = fmt.Sprintf("(1 + Dest)/2 = (1 + %g)/2 on a referral", m[gpagent.MetricDest])
	case hasTx:
		how = fmt.Sprintf("r/(w_diag + w_treat) = (%g·%g + %g·%g)/%g on a treated case", gpagent.WDiag, m[gpagent.MetricDx], gpagent.WTreat, m[gpagent.MetricTx], gpagent.WDiag+gpagent.WTreat)
	default:
		how = "Dx: the corpus has no treatment reference"
	}
	v.Lines = append(v.Lines, ScoreLine{"S", fmt.Sprintf("%.4f", sc.S), how + "; clinevo's headline, not a number of the paper"}, noU)
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
