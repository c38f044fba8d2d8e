package klinike_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// TestKlinikeTaskErrorsNameLineAndField: a bad KlinikeBench part of a task is
// refused naming the file, the line and the field.
func TestKlinikeTaskErrorsNameLineAndField(t *testing.T) {
	good := klinike.Tasks(7)[klinike.SplitAll][:2]
	tests := []struct {
		name  string
		spoil func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey)
		want  []string
	}{
		{"a finding both present and absent", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			f := c.Patient.Facts[0]
			f.ID, f.Absent = "fx", true
			c.Patient.Facts = append(c.Patient.Facts, f)
		}, []string{"patient_view.facts[", "].absent", "present or absent, not both"}},
		{"too few tools", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*sb).Tools = []string{"record_diagnosis", "get_patient_info"}
			(*key) = nil
		}, []string{"exam_view.sandbox.tools", "2 tools, want 3 to 24"}},
		{"an unknown tool", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) { (*sb).Tools[1] = "order_pet_scan" }, []string{"exam_view.sandbox.tools[1]", `unknown tool "order_pet_scan"`}},
		{"no record_diagnosis", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*sb).Tools = (*sb).Tools[:len((*sb).Tools)-1]
		}, []string{"exam_view.sandbox.tools", "must include record_diagnosis"}},
		{"a forbidden tool also exposed", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*sb).Forbidden = []string{(*sb).Tools[0]}
		},
			[]string{"exam_view.sandbox.forbidden[0]", "also exposed"}},
		{"a required tool not exposed", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Required = append((*key).Required, "admit_to_hospital")
			(*sb).Forbidden = nil
			(*sb).Tools = without((*sb).Tools, "admit_to_hospital")
		}, []string{"manager_view.tool_key.required_tools[", `"admit_to_hospital" is not exposed`}},
		{"an unknown rule", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Constraints[0].Rule = "should"
		},
			[]string{"manager_view.tool_key.constraints[0].rule", `unknown rule "should"`}},
		{"an argument the tool does not take", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Constraints[0].Arguments = map[string]string{"contrast": "yes"}
		}, []string{"manager_view.tool_key.constraints[0].arguments.contrast", "takes no argument"}},
		{"a value outside the schema's enum", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Constraints = append((*key).Constraints, klinike.ActionConstraint{Tool: "order_imaging", Rule: "never",
				Arguments: map[string]string{"modality": "PET"}})
		}, []string{"constraints[", "].arguments.modality", `value "PET", want one of X-ray, CT, MRI, ultrasound`}},
		{"a tool key without a sandbox", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) { (*sb) = nil }, []string{"manager_view.tool_key", "needs exam_view.sandbox"}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := cloneCase(t, good[1])
			sb, key := sandboxOf(t, &bad), keyOf(t, &bad)
			tc.spoil(&bad, &sb, &key)
			klinike.SetTask(&bad, sb, key)
			first, err := json.Marshal(good[0])
			require.NoError(t, err)
			second, err := json.Marshal(bad)
			require.NoError(t, err)
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			require.NoError(t, os.WriteFile(p, []byte(string(first)+"\n"+string(second)+"\n"), 0o644))
			_, err = corpus.Load(p)
			require.Error(t, err)
			require.Contains(t, err.Error(), p+":2:")
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

func cloneCase(t *testing.T, c clinic.Case) clinic.Case {
	t.Helper()
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var out clinic.Case
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func without(xs []string, x string) []string {
	var out []string
	for _, v := range xs {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// TestKlinikeRoundTrip: the generated tasks write and read back as native JSONL unchanged.
func TestKlinikeRoundTrip(t *testing.T) {
	tasks := klinike.Tasks(7)[klinike.SplitTest]
	p := filepath.Join(t.TempDir(), "klinike.jsonl")
	require.NoError(t, corpus.WriteJSONL(p, tasks))
	c, err := corpus.Load(p)
	require.NoError(t, err)
	require.Equal(t, tasks, c.Cases)
	ref, err := corpus.Load("builtin:klinike-test@7")
	require.NoError(t, err)
	require.Equal(t, tasks, ref.Cases)
}
