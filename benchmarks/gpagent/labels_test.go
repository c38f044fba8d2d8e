package gpagent_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

// TestGPProcessLabels labels GPAgentBench's actions with the write-back key
// and score-only.
func TestGPProcessLabels(t *testing.T) {
	refer := &clinic.Referral{Needed: true, Destination: "ENT", Urgency: "emergency", RedFlags: []string{"swelling behind the ear"}}
	events := []clinic.Event{
		gpagent.WithStep(clinic.Event{Turn: 0, Action: gpagent.BodyExam, Status: clinic.StatusReturned, Reply: "Tender swelling behind the ear."}, gpagent.Step{Target: "ent"}),
		{Turn: 1, Action: gpagent.Treat, Status: clinic.StatusMasked},
		gpagent.WithStep(clinic.Event{Turn: 2, Action: gpagent.BodyExam, Status: clinic.StatusReturned, Reply: "Soft, non-tender."}, gpagent.Step{Target: "abdominal"}),
		{Turn: 3, Action: gpagent.Diagnose, Status: clinic.StatusReturned, WorkingDiagnoses: []string{"otitis media"}},
		{Turn: 4, Action: gpagent.Treat, Status: clinic.StatusFinalized, Final: ending(clinic.FinalOutput{}, gpagent.Ending{Disposition: gpagent.PathwayManage})},
	}
	missed := grader.GradeProcess(grader.ProcessInput{Events: events, Outcome: grader.Outcome{S: 0}},
		&grader.Key{DiagnosisGrade: 0, Bench: gpagent.Key{Pathway: gpagent.PathwayRefer, Refer: refer}}, gpagent.Benchmark{})
	labels := func(g grader.ProcessGrade) []grader.Label {
		var out []grader.Label
		for _, a := range g.Actions {
			out = append(out, a.Label)
		}
		return out
	}
	require.Equal(t, []grader.Label{grader.HighYield, grader.Inefficient, grader.LowYield, grader.LowYield, grader.CriticalError}, labels(missed))
	require.Contains(t, missed.Actions[4].Rationale, "missed referral")
	require.Equal(t, "otitis media", missed.Actions[3].Target)

	referred := []clinic.Event{{Turn: 0, Action: gpagent.Refer, Status: clinic.StatusFinalized, Final: ending(clinic.FinalOutput{}, gpagent.Ending{Disposition: gpagent.PathwayRefer, Destination: "ENT"})}}
	for _, tc := range []struct {
		name string
		s    float64
		key  *grader.Key
		want grader.Label
	}{
		{"a needed referral, right destination", 1, &grader.Key{Bench: gpagent.Key{Pathway: gpagent.PathwayRefer, Refer: refer}}, grader.HighYield},
		{"a needed referral, wrong destination", 0.5, &grader.Key{Bench: gpagent.Key{Pathway: gpagent.PathwayRefer, Refer: refer}}, grader.LowYield},
		{"an unneeded referral", 0, &grader.Key{Bench: gpagent.Key{Pathway: gpagent.PathwayManage}}, grader.Inefficient},
		{"score-only: full marks", 1, nil, grader.HighYield},
		{"score-only: 0", 0, nil, grader.Inefficient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := grader.GradeProcess(grader.ProcessInput{Events: referred, Outcome: grader.Outcome{S: tc.s}}, tc.key, gpagent.Benchmark{})
			require.Equal(t, []grader.Label{tc.want}, labels(g))
		})
	}
}

// TestTestLabelsPriceTheEventsCost labels returned tests nobody used: a test
// is priced by the cost the environment charged for it (Event.Cost, Table 4
// under the run's prices), not by the default catalog, so that a test the
// run prices at 250 USD or more is inefficient and one it prices lower is
// not, whatever the catalog says.
func TestTestLabelsPriceTheEventsCost(t *testing.T) {
	unused := func(test string, cost float64) clinic.Event {
		return clinic.Event{Turn: 0, Action: clinic.RequestTest, Test: test, Status: clinic.StatusReturned, Reply: "Unremarkable.", Cost: cost}
	}
	for _, tc := range []struct {
		name string
		ev   clinic.Event
		want grader.Label
	}{
		{"an ultrasound the run prices at 250", unused("abdominal ultrasound", 250), grader.Inefficient},
		{"an ultrasound the run prices at 40", unused("abdominal ultrasound", 40), grader.LowYield},
		{"a blood count the run prices at 300", unused("complete blood count", 300), grader.Inefficient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := grader.ProcessInput{Events: []clinic.Event{tc.ev}, Outcome: grader.Outcome{S: 0.5}}
			g := grader.GradeProcess(in, nil, gpagent.Benchmark{})
			require.Equal(t, tc.want, g.Actions[0].Label, g.Actions[0].Rationale)
			require.Equal(t, tc.ev.Test, g.Actions[0].Target)
			yield := in
			yield.YieldOnly = true
			require.NotEqual(t, grader.Inefficient, grader.GradeProcess(yield, nil, gpagent.Benchmark{}).Actions[0].Label, "yield-only grading ignores the price")
		})
	}
	shared := grader.GradeProcess(grader.ProcessInput{Events: []clinic.Event{unused("abdominal ultrasound", 40)}, Outcome: grader.Outcome{S: 0.5}}, nil, nil)
	require.Equal(t, grader.Inefficient, shared.Actions[0].Label, "the shared labels price by the default catalog (250 USD)")
}
