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
		spoil func(c *clinic.Case)
		want  []string
	}{
		{"a finding both present and absent", func(c *clinic.Case) {
			f := c.Patient.Facts[0]
			f.ID, f.Absent = "fx", true
			c.Patient.Facts = append(c.Patient.Facts, f)
		}, []string{"patient_view.facts[", "].absent", "present or absent, not both"}},
		{"too few tools", func(c *clinic.Case) {
			c.Exam.Sandbox.Tools = []string{"record_diagnosis", "get_patient_info"}
			c.Manager.Tools = nil
		}, []string{"exam_view.sandbox.tools", "2 tools, want 3 to 24"}},
		{"an unknown tool", func(c *clinic.Case) { c.Exam.Sandbox.Tools[1] = "order_pet_scan" }, []string{"exam_view.sandbox.tools[1]", `unknown tool "order_pet_scan"`}},
		{"no record_diagnosis", func(c *clinic.Case) {
			c.Exam.Sandbox.Tools = c.Exam.Sandbox.Tools[:len(c.Exam.Sandbox.Tools)-1]
		}, []string{"exam_view.sandbox.tools", "must include record_diagnosis"}},
		{"a forbidden tool also exposed", func(c *clinic.Case) { c.Exam.Sandbox.Forbidden = []string{c.Exam.Sandbox.Tools[0]} },
			[]string{"exam_view.sandbox.forbidden[0]", "also exposed"}},
		{"a required tool not exposed", func(c *clinic.Case) {
			c.Manager.Tools.Required = append(c.Manager.Tools.Required, "admit_to_hospital")
			c.Exam.Sandbox.Forbidden = nil
			c.Exam.Sandbox.Tools = without(c.Exam.Sandbox.Tools, "admit_to_hospital")
		}, []string{"manager_view.tool_key.required_tools[", `"admit_to_hospital" is not exposed`}},
		{"an unknown rule", func(c *clinic.Case) { c.Manager.Tools.Constraints[0].Rule = "should" },
			[]string{"manager_view.tool_key.constraints[0].rule", `unknown rule "should"`}},
		{"an argument the tool does not take", func(c *clinic.Case) {
			c.Manager.Tools.Constraints[0].Arguments = map[string]string{"contrast": "yes"}
		}, []string{"manager_view.tool_key.constraints[0].arguments.contrast", "takes no argument"}},
		{"a value outside the schema's enum", func(c *clinic.Case) {
			c.Manager.Tools.Constraints = append(c.Manager.Tools.Constraints, clinic.ActionConstraint{Tool: "order_imaging", Rule: "never",
				Arguments: map[string]string{"modality": "PET"}})
		}, []string{"constraints[", "].arguments.modality", `value "PET", want one of X-ray, CT, MRI, ultrasound`}},
		{"a tool key without a sandbox", func(c *clinic.Case) { c.Exam.Sandbox = nil }, []string{"manager_view.tool_key", "needs exam_view.sandbox"}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := cloneCase(t, good[1])
			tc.spoil(&bad)
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
