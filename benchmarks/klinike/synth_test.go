package klinike

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
)

// TestKlinikeTasks: at least 200 tasks from the condition table, every one a
// complete KlinikeBench-style task, and a fixed train/test split by the seed.
func TestKlinikeTasks(t *testing.T) {
	s := Tasks(7)
	all := s[SplitAll]
	require.GreaterOrEqual(t, len(all), 200)
	require.Len(t, all, len(synth.Conditions())*Instances)
	require.Len(t, s[SplitTest], TestSize)
	require.Len(t, s[SplitTrain], len(all)-TestSize)
	test := map[string]bool{}
	for _, c := range s[SplitTest] {
		test[c.ID] = true
		require.Equal(t, SplitTest, c.Meta.Split)
	}
	for _, c := range s[SplitTrain] {
		require.False(t, test[c.ID], "train and test are disjoint")
	}
	perCondition := map[string]int{}
	withAbsent, withForbidden, withNever := 0, 0, 0
	for _, c := range all {
		perCondition[c.Condition]++
		sb, key := mustSandbox(t, &c), mustKey(t, &c)
		require.NotNil(t, sb, c.ID)
		require.NotNil(t, key, c.ID)
		require.GreaterOrEqual(t, len(sb.Tools), 3, c.ID)
		require.LessOrEqual(t, len(sb.Tools), 24, c.ID)
		require.Contains(t, sb.Tools, sandbox.RecordDiagnosis, c.ID)
		for _, r := range key.Required {
			require.Contains(t, sb.Tools, r, "%s: a required tool is exposed", c.ID)
		}
		for _, k := range key.Constraints {
			if k.Rule == RuleMust {
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
	for _, cd := range synth.Conditions() {
		require.Equal(t, Instances, perCondition[cd.Key], cd.Key)
	}
	require.Greater(t, withAbsent, len(all)/2, "most tasks carry denied findings")
	require.Positive(t, withForbidden)
	require.Positive(t, withNever)

	again := Tasks(7)
	require.Equal(t, s, again, "deterministic by seed")
	other := Tasks(8)[SplitTest]
	ids := func(cs []clinic.Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	require.NotEqual(t, ids(s[SplitTest]), ids(other), "another seed draws another split")
}

// TestKlinikeTaskParts works one task's parts out from the condition table.
func TestKlinikeTaskParts(t *testing.T) {
	var pneumonia *clinic.Case
	var allergic []clinic.Case // penicillin-allergic patients, any condition
	for _, c := range Tasks(7)[SplitAll] {
		if slices.ContainsFunc(mustSandbox(t, &c).Record.Allergies, func(a string) bool { return strings.Contains(strings.ToLower(a), "penicillin") }) {
			allergic = append(allergic, c)
		}
		if c.Condition == "pneumonia" && pneumonia == nil && len(mustSandbox(t, &c).Record.Allergies) == 0 {
			pneumonia = &c
		}
	}
	require.NotNil(t, pneumonia)
	key := mustKey(t, pneumonia)
	require.Contains(t, key.Calls(), "prescribe_medication(drug=amoxicillin, route=oral)")
	require.Contains(t, key.Calls(), "order_imaging(modality=X-ray, region=chest)", "the chest x ray is pneumonia's imaging")
	require.Contains(t, key.Required, "get_patient_allergies", "check the allergies before prescribing")
	require.Contains(t, pneumonia.Manager.MustAsk, clinic.TopicAllergies)
	// A penicillin-allergic patient is never prescribed a penicillin; where
	// the usual drug is one, the key forbids it and calls the alternative.
	require.NotEmpty(t, allergic, "seed 7 draws a penicillin-allergic patient")
	swapped := 0
	for _, c := range allergic {
		for _, p := range penicillins {
			require.NotContains(t, mustKey(t, &c).Calls(), "prescribe_medication(drug="+p+", route=oral)", c.ID)
			if slices.Contains(mustKey(t, &c).Avoid(), "prescribe_medication(drug="+p+")") {
				require.Contains(t, mustKey(t, &c).Calls(), "prescribe_medication(drug=clarithromycin, route=oral)", c.ID)
				swapped++
			}
		}
	}
	require.Positive(t, swapped, "some allergic patient's usual drug is a penicillin")
	// The chart holds each history, medication and allergy fact the patient
	// has (its text without the final full stop), and no denied one.
	denied := 0
	for _, c := range Tasks(7)[SplitAll] {
		rec := mustSandbox(t, &c).Record
		charted := map[string][]string{clinic.TopicPastHistory: rec.History, clinic.TopicMedications: rec.Medications, clinic.TopicAllergies: rec.Allergies}
		for _, f := range c.Patient.Facts {
			text := strings.TrimSuffix(strings.TrimSpace(f.Text), ".")
			for _, topic := range f.Topics {
				list, ok := charted[topic]
				switch {
				case !ok:
				case f.Absent:
					denied++
					require.NotContains(t, list, text, "%s: a denied fact is charted", c.ID)
				case !denial(f.Text):
					require.Contains(t, list, text, "%s: a %s fact is not charted", c.ID, topic)
				}
			}
		}
	}
	require.Positive(t, denied)
}

func mustSandbox(t *testing.T, c *clinic.Case) *Sandbox {
	t.Helper()
	sb, err := SandboxOf(c)
	require.NoError(t, err)
	return sb
}

func mustKey(t *testing.T, c *clinic.Case) *ToolKey {
	t.Helper()
	k, err := ToolKeyOf(c)
	require.NoError(t, err)
	return k
}
