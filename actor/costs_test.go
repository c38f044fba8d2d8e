package actor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
)

// pricedView is a benchmark's view part with prices and, where cap > 0, a
// budget.
type pricedView struct {
	prices     map[string]float64
	cap, spent float64
}

func (pricedView) DoctorViewExt() {}

func (p pricedView) TestPrice(test string) (float64, bool) {
	usd, ok := p.prices[test]
	return usd, ok
}

func (p pricedView) LeftUSD() (float64, bool) { return p.cap - p.spent, p.cap > 0 }

// TestAffordable: tests are kept in order while their prices fit together
// in what is left of the budget; without a budget, or without prices, all
// are kept.
func TestAffordable(t *testing.T) {
	prices := map[string]float64{"ct head": 105.13, "complete blood count": 7.77, "mri brain": 314.08}
	tests := []string{"ct head", "mri brain", "complete blood count", "serum unobtainium"}
	for _, tc := range []struct {
		name string
		ext  clinic.ViewExt
		want []string
	}{
		// 400 − 300 = 100 left: CT (105.13) does not fit, MRI neither, CBC (7.77) does, the unpriced one is kept.
		{"a budget of 400 with 300 spent", pricedView{prices, 400, 300}, []string{"complete blood count", "serum unobtainium"}},
		// 500 − 0: CT 105.13, then MRI 314.08 (419.21 in all), then CBC (427, still under 500).
		{"a budget of 500", pricedView{prices, 500, 0}, []string{"ct head", "mri brain", "complete blood count", "serum unobtainium"}},
		// 200: CT (105.13) fits, MRI (419.21) does not, CBC (112.90) does.
		{"a budget of 200", pricedView{prices, 200, 0}, []string{"ct head", "complete blood count", "serum unobtainium"}},
		{"no budget", pricedView{prices, 0, 0}, tests},
		{"no prices", nil, tests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, actor.Affordable(clinic.DoctorView{Ext: tc.ext}, tests))
		})
	}
	require.Equal(t, actor.UncappedTests, actor.TestAllowance(clinic.DoctorView{Ext: pricedView{}}), "priced, no test budget: the doctor's own habit")
	require.Equal(t, 3, actor.TestAllowance(clinic.DoctorView{MaxTests: 3, Ext: pricedView{}}))
	require.Equal(t, 0, actor.TestAllowance(clinic.DoctorView{Catalog: []string{"cbc"}}), "a list, no budget, no prices: none")
	require.Equal(t, 3, actor.TestAllowance(clinic.DoctorView{}), "no list, no budget, no prices: MedEvoEval's Emax (clinevo's choice)")
}

// TestStewardshipByPrice: where the view prices tests, the built-in panel's
// stewardship approves the proposed tests that fit the budget, however
// many, and vetoes the rest; it approves the examination always.
func TestStewardshipByPrice(t *testing.T) {
	v := clinic.DoctorView{OpeningComplaint: "Headache for a week.", MaxTurns: 10, Actions: []string{"ASK", "REQUEST_TEST", "FINALIZE"},
		FinalFields: []string{"diagnosis"}, Ext: pricedView{map[string]float64{"ct head": 105.13, "mri brain": 314.08}, 400, 0}}
	notes := []actor.PanelNote{{Role: actor.TestChooser, Tests: []string{"physical examination", "ct head", "mri brain"}},
		{Role: actor.Challenger, Tests: []string{"erythrocyte sedimentation rate"}}}
	p := actor.BuiltinPanel(nil)
	n, err := p.Members[actor.Stewardship].Deliberate(context.Background(), v, notes)
	require.NoError(t, err)
	// 400: CT 105.13 fits, MRI (419.21 with it) does not, the unpriced ESR is kept.
	require.Equal(t, []string{"physical examination", "ct head", "erythrocyte sedimentation rate"}, n.Tests)
	require.Equal(t, []string{"mri brain"}, n.Vetoed)
	v.Ext = pricedView{prices: map[string]float64{"ct head": 105.13, "mri brain": 314.08}}
	n, err = p.Members[actor.Stewardship].Deliberate(context.Background(), v, notes)
	require.NoError(t, err)
	require.Equal(t, []string{"physical examination", "ct head", "mri brain", "erythrocyte sedimentation rate"}, n.Tests, "no budget: no count either")
	require.Empty(t, n.Vetoed)
}
