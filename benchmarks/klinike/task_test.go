package klinike_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
)

func TestCallSpelling(t *testing.T) {
	tests := []struct {
		spelled string
		call    klinike.Call
		err     string
	}{
		{"order_imaging(modality=CT, region=abdomen)", klinike.Call{Tool: "order_imaging", Arguments: map[string]string{"modality": "CT", "region": "abdomen"}}, ""},
		{"get_patient_info()", klinike.Call{Tool: "get_patient_info", Arguments: map[string]string{}}, ""},
		{"prescribe_medication(drug=glyceryl trinitrate, route=sublingual)", klinike.Call{Tool: "prescribe_medication",
			Arguments: map[string]string{"drug": "glyceryl trinitrate", "route": "sublingual"}}, ""},
		{"order_imaging(modality=CT", klinike.Call{}, "missing closing parenthesis"},
		{"order_imaging(CT)", klinike.Call{}, `argument "CT" is not name=value`},
		{"(x=1)", klinike.Call{}, "want tool(name=value, ...)"},
	}
	for _, tc := range tests {
		t.Run(tc.spelled, func(t *testing.T) {
			c, err := klinike.ParseCall(tc.spelled)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.call, c)
			require.Equal(t, tc.spelled, c.String(), "arguments are spelled in name order")
		})
	}
	bare, err := klinike.ParseCall("get_patient_vitals")
	require.NoError(t, err)
	require.Equal(t, "get_patient_vitals()", bare.String())
}

func TestToolKeyCalls(t *testing.T) {
	k := klinike.ToolKey{Required: []string{"get_patient_info", "order_imaging", "prescribe_medication"},
		Constraints: []klinike.ActionConstraint{
			{Tool: "prescribe_medication", Rule: klinike.RuleMust, Arguments: map[string]string{"drug": "clarithromycin", "route": "oral"}},
			{Tool: "prescribe_medication", Rule: klinike.RuleNever, Arguments: map[string]string{"drug": "amoxicillin"}},
			{Tool: "order_imaging", Rule: klinike.RuleMust, Arguments: map[string]string{"modality": "X-ray", "region": "chest"}},
			{Tool: "examine_patient", Rule: klinike.RuleMust, Arguments: map[string]string{"system": "respiratory"}},
		}}
	require.Equal(t, []string{"get_patient_info()", "order_imaging(modality=X-ray, region=chest)",
		"prescribe_medication(drug=clarithromycin, route=oral)", "examine_patient(system=respiratory)"}, k.Calls(),
		"required tools in order with their must-arguments, then must-constraints on tools not required")
	require.Equal(t, []string{"prescribe_medication(drug=amoxicillin)"}, k.Avoid())
}
