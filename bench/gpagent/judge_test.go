package gpagent_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

func rubric() gpagent.Rubric {
	return gpagent.Rubric{RubricJudge: grader.RubricJudge{W: settings.Default().Scoring}}
}

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
			got, err := rubric().JudgeDx(context.Background(), tc.c, tc.pred)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestRubricTx checks the built-in reading of C.2's treatment rules: 1 for
// three quarters of the ground-truth items or more, 0.5 for some, 0 for none
// or for an unsafe item.
func TestRubricTx(t *testing.T) {
	c := &clinic.Case{ID: "c", Manager: clinic.ManagerView{UnsafeManagement: []string{"intravenous antibiotics at home"}}}
	gpagent.SetManagement(c, gpagent.Management{Treatment: []string{"oral amoxicillin for five days", "paracetamol for fever", "review in 48 hours", "safety net advice"}})
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
			got, err := rubric().JudgeTx(context.Background(), c, tc.plan)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := gpagent.Rubric{}.JudgeTx(context.Background(), &clinic.Case{ID: "none"}, []string{"x"})
	require.ErrorContains(t, err, "case none has no ground-truth treatment")
	m := clinic.ManagerView{Management: []string{"rest"}}
	got, err := rubric().JudgeTx(context.Background(), &clinic.Case{Manager: m}, []string{"rest"})
	require.NoError(t, err)
	require.Equal(t, 1.0, got, "the management key points where a case has no treatment")
}

// TestTemplatesRender renders the benchmark's own templates: the versions
// runs log are of templates it holds.
func TestTemplatesRender(t *testing.T) {
	b := gpagent.Benchmark{}
	require.Equal(t, []string{"doctor_gp/1"}, b.Templates("doctor"))
	require.Equal(t, []string{"judge_dx/1", "judge_tx/1"}, b.Templates("judge"))
	require.Nil(t, b.Templates("patient"), "the shared patient")
	msgs, err := gpagent.DoctorPrompt(gpView(), "tags")
	require.NoError(t, err)
	require.Contains(t, msgs[1].Content, "Current workflow state: collecting_evidence")
}
