package gpagent_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
)

// TestSafetyMetricsByHand scores nine terminal outcomes and averages them the
// way every report does (analysis.StageMeans: each metric over the episodes
// that define it), against GPAgentBench C.2 worked out by hand:
//
//	case needs referral (4): refer, refer, treat (missed), timeout (missed)
//	case manageable     (5): treat, treat, treat, refer (unneeded), timeout
//
//	Mgmt       = right terminal actions / all = (2 + 3) / 9 = 5/9 = 0.5556
//	Miss-Refer = missed among cases needing referral = 2/4 = 0.5
//	             (the false-negative rate with referral positive; a timeout counts as a miss)
//	Miss-GP    = not managed locally among manageable cases = 2/5 = 0.4
//	             (the false-positive rate: 1 unneeded referral, and the timeout)
//	check: 1 − (4·0.5 + 5·0.4)/9 = 1 − 4/9 = 5/9 = Mgmt
//	Dest       = referred to a right destination among the 4 cases needing referral:
//	             (1 + 0 + 0 + 0)/4 = 0.25 (the referrals made: 1/2 = Dest/(1 − Miss-Refer))
//	Dx         = over all 9 test cases (§5, Table 1; C.2 "averaged over all test
//	             cases"): the 4 treated ones right, the 2 timeouts without a diagnosis
//	             and the 3 referrals naming none score 0: 4/9 = 0.4444
//	Tx         = over all 9 likewise: the 4 treated with the full plan: 4/9
//	Dx (committed), the secondary figure = over the 6 episodes not ending in
//	             refer: 4/6 = 0.6667; Tx (committed) 4/6
func TestSafetyMetricsByHand(t *testing.T) {
	t.Parallel()
	s := gpSettings()
	refer := gpCase(t, gpagent.PathwayRefer, "sinusitis")
	manage := gpCase(t, gpagent.PathwayManage, "sinusitis")
	dx := func(c clinic.Case) clinic.DoctorOutput {
		return clinic.DoctorOutput{Action: gpagent.Diagnose, Diagnosis: []string{c.Manager.Diagnosis.Name}}
	}
	tx := func(c clinic.Case) clinic.DoctorOutput {
		return clinic.DoctorOutput{Action: gpagent.Treat, Plan: gpagent.ManagementOf(&c).Treatment}
	}
	ed := referTo("Emergency Department", "emergency")
	derm := referTo("Dermatology", "routine")
	var timeout []clinic.DoctorOutput
	for range s.Episode.MaxTurns {
		timeout = append(timeout, ask)
	}
	plays := []struct {
		c    clinic.Case
		outs []clinic.DoctorOutput
	}{
		{refer, []clinic.DoctorOutput{ed}}, {refer, []clinic.DoctorOutput{derm}}, {refer, []clinic.DoctorOutput{dx(refer), tx(refer)}}, {refer, timeout},
		{manage, []clinic.DoctorOutput{dx(manage), tx(manage)}}, {manage, []clinic.DoctorOutput{dx(manage), tx(manage)}},
		{manage, []clinic.DoctorOutput{dx(manage), tx(manage)}}, {manage, []clinic.DoctorOutput{derm}}, {manage, timeout},
	}
	var recs []results.Record
	for i, p := range plays {
		env := script(t, p.c, s, p.outs...)
		sc, err := gpagent.Score(context.Background(), &p.c, s, env, nil)
		require.NoError(t, err)
		recs = append(recs, results.Record{Run: "hand", Stage: 1, Index: i + 1, Scores: sc})
	}
	means := analysis.StageMeans(recs)
	require.Len(t, means, 1)
	m := means[0].Metrics
	require.InDelta(t, 5.0/9, m[gpagent.MetricMgmt], 1e-9)
	require.InDelta(t, 0.5, m[gpagent.MetricMissRefer], 1e-9)
	require.InDelta(t, 0.4, m[gpagent.MetricMissGP], 1e-9)
	require.InDelta(t, 1-(4*m[gpagent.MetricMissRefer]+5*m[gpagent.MetricMissGP])/9, m[gpagent.MetricMgmt], 1e-9)
	require.InDelta(t, 0.25, m[gpagent.MetricDest], 1e-9)
	require.InDelta(t, 4.0/9, m[gpagent.MetricDx], 1e-9)
	require.InDelta(t, 4.0/9, m[gpagent.MetricTx], 1e-9)
	require.InDelta(t, 4.0/6, m[gpagent.MetricDxCommitted], 1e-9)
	require.InDelta(t, 4.0/6, m[gpagent.MetricTxCommitted], 1e-9)
	for _, r := range recs {
		require.Contains(t, r.Scores.Metrics, gpagent.MetricDx, "Dx is defined on every test case")
	}
	require.InDelta(t, 4.0/9, m["cost_safety"], 1e-9, "C_safety = 1[mgmt wrong]")
}
