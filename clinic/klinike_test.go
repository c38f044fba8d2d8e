package clinic_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
)

func TestCallSpelling(t *testing.T) {
	tests := []struct {
		spelled string
		call    clinic.Call
		err     string
	}{
		{"order_imaging(modality=CT, region=abdomen)", clinic.Call{Tool: "order_imaging", Arguments: map[string]string{"modality": "CT", "region": "abdomen"}}, ""},
		{"get_patient_info()", clinic.Call{Tool: "get_patient_info", Arguments: map[string]string{}}, ""},
		{"prescribe_medication(drug=glyceryl trinitrate, route=sublingual)", clinic.Call{Tool: "prescribe_medication",
			Arguments: map[string]string{"drug": "glyceryl trinitrate", "route": "sublingual"}}, ""},
		{"order_imaging(modality=CT", clinic.Call{}, "missing closing parenthesis"},
		{"order_imaging(CT)", clinic.Call{}, `argument "CT" is not name=value`},
		{"(x=1)", clinic.Call{}, "want tool(name=value, ...)"},
	}
	for _, tc := range tests {
		t.Run(tc.spelled, func(t *testing.T) {
			c, err := clinic.ParseCall(tc.spelled)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.call, c)
			require.Equal(t, tc.spelled, c.String(), "arguments are spelled in name order")
		})
	}
	bare, err := clinic.ParseCall("get_patient_vitals")
	require.NoError(t, err)
	require.Equal(t, "get_patient_vitals()", bare.String())
}

func TestToolKeyCalls(t *testing.T) {
	k := clinic.ToolKey{Required: []string{"get_patient_info", "order_imaging", "prescribe_medication"},
		Constraints: []clinic.ActionConstraint{
			{Tool: "prescribe_medication", Rule: clinic.RuleMust, Arguments: map[string]string{"drug": "clarithromycin", "route": "oral"}},
			{Tool: "prescribe_medication", Rule: clinic.RuleNever, Arguments: map[string]string{"drug": "amoxicillin"}},
			{Tool: "order_imaging", Rule: clinic.RuleMust, Arguments: map[string]string{"modality": "X-ray", "region": "chest"}},
			{Tool: "examine_patient", Rule: clinic.RuleMust, Arguments: map[string]string{"system": "respiratory"}},
		}}
	require.Equal(t, []string{"get_patient_info()", "order_imaging(modality=X-ray, region=chest)",
		"prescribe_medication(drug=clarithromycin, route=oral)", "examine_patient(system=respiratory)"}, k.Calls(),
		"required tools in order with their must-arguments, then must-constraints on tools not required")
	require.Equal(t, []string{"prescribe_medication(drug=amoxicillin)"}, k.Avoid())
}

func TestParseCallRule(t *testing.T) {
	d, ok := clinic.ParseRule("CALL order_imaging(modality=CT, region=abdomen) WHEN burning belly back: presentations like this needed it")
	require.True(t, ok)
	require.Equal(t, clinic.RuleDirective{Verb: clinic.VerbCall, Target: "order_imaging(modality=CT, region=abdomen)", When: "burning belly back"}, d)
}
