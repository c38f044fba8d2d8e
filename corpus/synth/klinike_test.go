package synth

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/sandbox"
)

// TestKlinikeTasks: at least 200 tasks from the condition table, every one a
// complete KlinikeBench-style task, and a fixed train/test split by the seed.
func TestKlinikeTasks(t *testing.T) {
	s := Klinike(7)
	all := s[SplitKlinike]
	require.GreaterOrEqual(t, len(all), 200)
	require.Len(t, all, len(conditions)*KlinikeInstances)
	require.Len(t, s[SplitKlinikeTest], KlinikeTestSize)
	require.Len(t, s[SplitKlinikeTrain], len(all)-KlinikeTestSize)
	test := map[string]bool{}
	for _, c := range s[SplitKlinikeTest] {
		test[c.ID] = true
		require.Equal(t, SplitKlinikeTest, c.Meta.Split)
	}
	for _, c := range s[SplitKlinikeTrain] {
		require.False(t, test[c.ID], "train and test are disjoint")
	}
	perCondition := map[string]int{}
	withAbsent, withForbidden, withNever := 0, 0, 0
	for _, c := range all {
		perCondition[c.Condition]++
		sb, key := c.Exam.Sandbox, c.Manager.Tools
		require.NotNil(t, sb, c.ID)
		require.NotNil(t, key, c.ID)
		require.GreaterOrEqual(t, len(sb.Tools), 3, c.ID)
		require.LessOrEqual(t, len(sb.Tools), 24, c.ID)
		require.Contains(t, sb.Tools, sandbox.RecordDiagnosis, c.ID)
		for _, r := range key.Required {
			require.Contains(t, sb.Tools, r, "%s: a required tool is exposed", c.ID)
		}
		for _, k := range key.Constraints {
			if k.Rule == clinic.RuleMust {
				require.Contains(t, key.Required, k.Tool, c.ID)
			}
		}
		require.NotEmpty(t, c.Manager.MustAsk, c.ID)
		if slices.ContainsFunc(c.Patient.Facts, func(f clinic.Fact) bool { return f.Absent }) {
			withAbsent++
		}
		if len(sb.Forbidden) > 0 {
			withForbidden++
		}
		if len(key.Avoid()) > 0 {
			withNever++
		}
	}
	for _, cd := range conditions {
		require.Equal(t, KlinikeInstances, perCondition[cd.key], cd.key)
	}
	require.Greater(t, withAbsent, len(all)/2, "most tasks carry denied findings")
	require.Positive(t, withForbidden)
	require.Positive(t, withNever)

	again := Klinike(7)
	require.Equal(t, s, again, "deterministic by seed")
	other := Klinike(8)[SplitKlinikeTest]
	ids := func(cs []clinic.Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	require.NotEqual(t, ids(s[SplitKlinikeTest]), ids(other), "another seed draws another split")
}

// TestKlinikeTaskParts works one task's parts out from the condition table.
func TestKlinikeTaskParts(t *testing.T) {
	var pneumonia, allergic *clinic.Case
	for _, c := range Klinike(7)[SplitKlinike] {
		if c.Condition != "pneumonia" {
			continue
		}
		if slices.ContainsFunc(c.Exam.Sandbox.Record.Allergies, func(a string) bool { return a != "" }) {
			allergic = &c
		} else if pneumonia == nil {
			pneumonia = &c
		}
	}
	require.NotNil(t, pneumonia)
	key := pneumonia.Manager.Tools
	require.Contains(t, key.Calls(), "prescribe_medication(drug=amoxicillin, route=oral)")
	require.Contains(t, key.Calls(), "order_imaging(modality=X-ray, region=chest)", "the chest x ray is pneumonia's imaging")
	require.Contains(t, key.Required, "get_patient_allergies", "check the allergies before prescribing")
	require.Contains(t, pneumonia.Manager.MustAsk, clinic.TopicAllergies)
	if allergic != nil { // a penicillin-allergic patient gets the alternative
		require.Contains(t, allergic.Manager.Tools.Calls(), "prescribe_medication(drug=clarithromycin, route=oral)")
		require.Contains(t, allergic.Manager.Tools.Avoid(), "prescribe_medication(drug=amoxicillin)")
	}
	for _, f := range pneumonia.Patient.Facts {
		if f.Absent {
			require.NotContains(t, pneumonia.Exam.Sandbox.Record.History, f.Text, "a denied finding is not charted")
		}
	}
}
