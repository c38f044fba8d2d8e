package grader_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

// TestGPProcessLabels labels GPAgentBench's actions with the write-back key
// and score-only.
func TestGPProcessLabels(t *testing.T) {
	refer := &clinic.Referral{Needed: true, Destination: "ENT", Urgency: "emergency", RedFlags: []string{"swelling behind the ear"}}
	events := []clinic.Event{
		{Turn: 0, Action: clinic.BodyExam, Target: "ent", Status: clinic.StatusReturned, Reply: "Tender swelling behind the ear."},
		{Turn: 1, Action: clinic.Treat, Status: clinic.StatusMasked},
		{Turn: 2, Action: clinic.BodyExam, Target: "abdominal", Status: clinic.StatusReturned, Reply: "Soft, non-tender."},
		{Turn: 3, Action: clinic.Diagnose, Status: clinic.StatusReturned, WorkingDiagnoses: []string{"otitis media"}},
		{Turn: 4, Action: clinic.Treat, Status: clinic.StatusFinalized, Final: &clinic.FinalOutput{Disposition: clinic.PathwayManage}},
	}
	missed := grader.GradeProcess(grader.ProcessInput{Events: events, Outcome: grader.Outcome{S: 0}},
		&grader.Key{Pathway: clinic.PathwayRefer, Refer: refer, DiagnosisGrade: 0}, nil)
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

	referred := []clinic.Event{{Turn: 0, Action: clinic.Refer, Status: clinic.StatusFinalized, Final: &clinic.FinalOutput{Disposition: clinic.PathwayRefer, Destination: "ENT"}}}
	for _, tc := range []struct {
		name string
		s    float64
		key  *grader.Key
		want grader.Label
	}{
		{"a needed referral, right destination", 1, &grader.Key{Pathway: clinic.PathwayRefer, Refer: refer}, grader.HighYield},
		{"a needed referral, wrong destination", 0.5, &grader.Key{Pathway: clinic.PathwayRefer, Refer: refer}, grader.LowYield},
		{"an unneeded referral", 0, &grader.Key{Pathway: clinic.PathwayManage}, grader.Inefficient},
		{"score-only: full marks", 1, nil, grader.HighYield},
		{"score-only: 0", 0, nil, grader.Inefficient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := grader.GradeProcess(grader.ProcessInput{Events: referred, Outcome: grader.Outcome{S: tc.s}}, tc.key, nil)
			require.Equal(t, []grader.Label{tc.want}, labels(g))
		})
	}
}
