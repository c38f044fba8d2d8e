package contract_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
)

func TestExperimentResumeValidation(t *testing.T) {
	base := func(resume map[string]contract.StreamSpec) contract.ExperimentSpec {
		return contract.ExperimentSpec{Name: "x", Corpus: "builtin:stream", Conditions: []contract.ConditionSpec{
			{Name: "E1", Kind: contract.KindStream}, {Name: "H0", Kind: contract.KindHeldOut, Corpus: "builtin:heldout"}}, Resume: resume}
	}
	for _, tc := range []struct {
		name   string
		resume map[string]contract.StreamSpec
		want   string
	}{
		{"a stream condition's own run", map[string]contract.StreamSpec{"E1": {RunID: "x-E1"}}, ""},
		{"an unknown condition", map[string]contract.StreamSpec{"E9": {RunID: "x-E9"}}, `experiment x: resume: "E9" is not a stream condition`},
		{"a held-out condition", map[string]contract.StreamSpec{"H0": {RunID: "x-H0"}}, `experiment x: resume: "H0" is not a stream condition`},
		{"another run", map[string]contract.StreamSpec{"E1": {RunID: "y-E1"}}, `experiment x: resume: condition E1 resumes run "y-E1", want "x-E1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := base(tc.resume).Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
		})
	}
}

// TestExperimentRunIDs: an experiment's name and every condition's run ID are
// run IDs; a variant's condition name holds one '@'.
func TestExperimentRunIDs(t *testing.T) {
	spec := func(name string, conds ...string) contract.ExperimentSpec {
		e := contract.ExperimentSpec{Name: name, Corpus: "builtin:stream", HeldOut: "builtin:heldout"}
		for _, c := range conds {
			e.Conditions = append(e.Conditions, contract.ConditionSpec{Name: c, Kind: contract.KindHeldOut})
		}
		return e
	}
	require.NoError(t, spec("kb", "A", "A@cap45").Validate())
	require.ErrorContains(t, spec("a/b", "A").Validate(), `experiment: name: run ID "a/b" holds '/' at position 2`)
	require.ErrorContains(t, spec("kb", "x y").Validate(), `experiment kb: conditions[0] (x y): the condition's run ID (<experiment>-<condition>): run ID "kb-x y" holds ' ' at position 5`)
	require.ErrorContains(t, spec("kb", "A@b@c").Validate(), `the variant after "@": run ID "b@c" holds '@' at position 2`)
}
