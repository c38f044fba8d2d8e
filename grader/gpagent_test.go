package grader_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// TestRubricDx checks the built-in reading of GPAgentBench C.2's diagnosis
// rules: synonyms and a specificity difference that keeps the core condition
// count; a vague or overly broad name does not, nor a dangerous alternative.
func TestRubricDx(t *testing.T) {
	c := &clinic.Case{Manager: clinic.ManagerView{Diagnosis: clinic.Diagnosis{Name: "Bacterial pneumonia", Acceptable: []string{"chest infection"},
		Dangerous: []string{"pulmonary embolism"}}}}
	uti := &clinic.Case{Manager: clinic.ManagerView{Diagnosis: clinic.Diagnosis{Name: "Urinary tract infection"}}}
	tests := []struct {
		c    *clinic.Case
		pred string
		want int
	}{
		{c, "bacterial pneumonia", 1},
		{c, "Chest infection", 1},                      // an accepted name
		{c, "pneumonia", 1},                            // the core condition, less specific (rule 2)
		{c, "right lower lobe bacterial pneumonia", 1}, // more specific
		{c, "pulmonary embolism", 0},                   // a dangerous alternative
		{c, "asthma", 0},
		{uti, "infection", 0},                     // overly broad (rule 3)
		{uti, "lower urinary tract infection", 1}, // more specific
		{uti, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.pred, func(t *testing.T) {
			got, err := grader.RubricJudge{W: settings.Default().Scoring}.JudgeDx(context.Background(), tc.c, tc.pred)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestRubricTx checks the built-in reading of C.2's treatment rules: 1 for
// three quarters of the ground-truth items or more, 0.5 for some, 0 for none
// or for an unsafe item.
func TestRubricTx(t *testing.T) {
	c := &clinic.Case{ID: "c", Manager: clinic.ManagerView{
		Treatment:        []string{"oral amoxicillin for five days", "paracetamol for fever", "review in 48 hours", "safety net advice"},
		UnsafeManagement: []string{"intravenous antibiotics at home"}}}
	tests := []struct {
		name string
		plan []string
		want float64
	}{
		{"all items", []string{"amoxicillin orally for five days", "paracetamol for fever", "review in 48 hours", "safety net advice"}, 1},
		{"three of four: 0.75", []string{"oral amoxicillin for five days", "paracetamol for fever", "review in 48 hours"}, 1},
		{"two of four", []string{"oral amoxicillin for five days", "paracetamol for fever"}, 0.5},
		{"none", []string{"rest"}, 0},
		{"an unsafe item", []string{"oral amoxicillin for five days", "intravenous antibiotics at home"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := grader.RubricJudge{W: settings.Default().Scoring}.JudgeTx(context.Background(), c, tc.plan)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := grader.RubricJudge{}.JudgeTx(context.Background(), &clinic.Case{ID: "none"}, []string{"x"})
	require.ErrorContains(t, err, "case none has no ground-truth treatment")
	m := clinic.ManagerView{Management: []string{"rest"}}
	got, err := grader.RubricJudge{W: settings.Default().Scoring}.JudgeTx(context.Background(), &clinic.Case{Manager: m}, []string{"rest"})
	require.NoError(t, err)
	require.Equal(t, 1.0, got, "the management key points where a case has no treatment")
}

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
