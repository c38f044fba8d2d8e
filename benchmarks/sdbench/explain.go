package sdbench

import (
	"fmt"
	"math"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/view"
)

var _ view.Explainer = Benchmark{}

// Explain is SDBench's scoring (Nori et al. 2025, §2, §3): the judge's
// five-point score, correct at CorrectAt or more, and the cost: the visits
// charged plus the tests' prices.
func (Benchmark) Explain(sc clinic.Scores, _ *clinic.Case, set settings.Settings) view.ScoreView {
	m := sc.Metrics
	v := view.ScoreView{Scores: sc, StrictHow: fmt.Sprintf("correct (pass): judge score ≥ %d; strict: judge score 5", CorrectAt)}
	sd, _ := EpisodeOf(set) // a stored run's settings were validated at its start
	v.Lines = []view.ScoreLine{
		view.Line("judge score", fmt.Sprint(m["likert"]), "the judge's five-point score of the final diagnosis: 5 same, 4 mostly right, 3 partly right, 2 mostly wrong, 1 wrong (Table 1)"),
		view.Line("correct", fmt.Sprint(m["correct"]), fmt.Sprintf("1 when the judge score is %d or more (§2); its mean is the accuracy", CorrectAt)),
		view.Line("cost", fmt.Sprintf("%.2f USD", sc.Cost), fmt.Sprintf("visits × visit price + tests = %g × %g + %.2f (§2, §3: consecutive questions are one visit, ended by a diagnostic test; tests at 2025 Medicare national amounts, prices.csv)",
			m["visits"], sd.VisitCost, m["test_cost_usd"])),
		view.Line("unmatched orders", fmt.Sprint(m["unmatched_orders"]), "tests the price table did not match, priced at their category's median (clinevo's fallback)"),
		view.Line("variant", sd.Mode(), "the run's MAI-DxO variant (§3.2)"),
	}
	switch {
	case math.Abs(sc.Cost-m["visit_cost_usd"]-m["test_cost_usd"]) > 0.01:
		v.Check = fmt.Sprintf("the stored cost %.2f is not visits %.2f + tests %.2f", sc.Cost, m["visit_cost_usd"], m["test_cost_usd"])
	case (m["likert"] >= CorrectAt) != (m["correct"] == 1):
		v.Check = fmt.Sprintf("the stored correct %g does not follow from the judge score %g", m["correct"], m["likert"])
	default:
		v.Check = "cost = visits + tests and correct = (judge score ≥ 4) hold for the stored numbers"
	}
	return v
}
