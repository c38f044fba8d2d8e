package gpagent_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/gpagent"
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
// three quarters of the case-specific ground-truth items or more, 0.5 for
// some, 0 for none or for an unsafe item. "review in 48 hours" and "safety
// net advice" would fit any case: they are not counted, so the key is the
// two drug items.
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
		{"both specific items", []string{"oral amoxicillin for five days", "paracetamol for fever"}, 1},
		{"one specific item of two", []string{"oral amoxicillin for five days", "review in 48 hours", "safety net advice"}, 0.5},
		{"only the items that fit any case", []string{"review in 48 hours", "safety net advice"}, 0},
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

// TestRubricTxGivesAGenericPlanNothing: a plan that would fit any patient
// (pain relief, fluids, rest, review, safety-netting, in the corpus's own
// words) scores Tx 0 on every case of the built-in GP corpus, while each
// case's own treatment scores 1. Before the floor it scored above 0 on 101
// of the 500 stream cases (those whose treatment lists a review,
// safety-netting or analgesia item).
func TestRubricTxGivesAGenericPlanNothing(t *testing.T) {
	generic := []string{"simple analgesia", "analgesia meanwhile", "fluids and rest", "review in two weeks with safety net",
		"return if symptoms worsen", "reassure", "safety netting advice", "follow up in 48 hours"}
	cases, err := gpagent.Benchmark{}.Builtin("gp", 2, 7)
	require.NoError(t, err)
	heldout, err := gpagent.Benchmark{}.Builtin("gp-heldout", 2, 7)
	require.NoError(t, err)
	n, unsafeHit := 0, 0
	for _, c := range append(cases, heldout...) {
		ref := gpagent.TreatmentReference(&c)
		if len(ref) == 0 {
			continue
		}
		n++
		got, err := rubric().JudgeTx(context.Background(), &c, generic)
		require.NoError(t, err)
		require.Zero(t, got, "%s (%s): %v", c.ID, c.Condition, ref)
		// The case's own treatment as the positive control; where an unsafe
		// item's words sit inside it ("no antibiotics" within "oral
		// antibiotic ..."), the unsafe check, which reads no negation, gives
		// 0: a known limit of the rubric, counted here.
		own, err := rubric().JudgeTx(context.Background(), &c, ref)
		require.NoError(t, err)
		if own != 1 {
			unsafeHit++
		}
	}
	require.Greater(t, n, 500)
	require.Less(t, unsafeHit, n/5)
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
