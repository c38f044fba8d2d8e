package klinike_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
)

// badTask spoils a task's parts: want are what the error names; shared
// marks a part the shared validation checks (corpus.Validate), not the
// benchmark's ValidateCase.
type badTask struct {
	name   string
	spoil  func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey)
	want   []string
	shared bool
}

// badTasks are the ways a task's parts go wrong.
func badTasks() []badTask {
	return []badTask{
		{"a finding both present and absent", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			f := c.Patient.Facts[0]
			f.ID, f.Absent = "fx", true
			c.Patient.Facts = append(c.Patient.Facts, f)
		}, []string{"patient_view.facts[", "].absent", "present or absent, not both"}, true},
		{"too few tools", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*sb).Tools = []string{"record_diagnosis", "get_patient_info"}
			(*key) = nil
		}, []string{"exam_view.sandbox.tools", "2 tools, want 3 to 24"}, false},
		{"an unknown tool", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) { (*sb).Tools[1] = "order_pet_scan" }, []string{"exam_view.sandbox.tools[1]", `unknown tool "order_pet_scan"`}, false},
		{"no record_diagnosis", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*sb).Tools = (*sb).Tools[:len((*sb).Tools)-1]
		}, []string{"exam_view.sandbox.tools", "must include record_diagnosis"}, false},
		{"a forbidden tool also exposed", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*sb).Forbidden = []string{(*sb).Tools[0]}
		},
			[]string{"exam_view.sandbox.forbidden[0]", "also exposed"}, false},
		{"a required tool not exposed", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Required = append((*key).Required, "admit_to_hospital")
			(*sb).Forbidden = nil
			(*sb).Tools = without((*sb).Tools, "admit_to_hospital")
		}, []string{"manager_view.tool_key.required_tools[", `"admit_to_hospital" is not exposed`}, false},
		{"an unknown rule", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Constraints[0].Rule = "should"
		},
			[]string{"manager_view.tool_key.constraints[0].rule", `unknown rule "should"`}, false},
		{"an argument the tool does not take", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Constraints[0].Arguments = map[string]string{"contrast": "yes"}
		}, []string{"manager_view.tool_key.constraints[0].arguments.contrast", "takes no argument"}, false},
		{"a value outside the schema's enum", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) {
			(*key).Constraints = append((*key).Constraints, klinike.ActionConstraint{Tool: "order_imaging", Rule: "never",
				Arguments: map[string]string{"modality": "PET"}})
		}, []string{"constraints[", "].arguments.modality", `value "PET", want one of X-ray, CT, MRI, ultrasound`}, false},
		{"a tool key without a sandbox", func(c *clinic.Case, sb **klinike.Sandbox, key **klinike.ToolKey) { (*sb) = nil }, []string{"manager_view.tool_key", "needs exam_view.sandbox"}, false},
	}
}

// spoiled is c with a bad task's spoil applied to its parts.
func spoiled(t *testing.T, c clinic.Case, bt badTask) clinic.Case {
	t.Helper()
	bad := cloneCase(t, c)
	sb, key := sandboxOf(t, &bad), keyOf(t, &bad)
	bt.spoil(&bad, &sb, &key)
	klinike.SetTask(&bad, sb, key)
	return bad
}

// TestKlinikeTaskErrorsNameLineAndField: a bad KlinikeBench part of a task is
// refused naming the file, the line and the field.
func TestKlinikeTaskErrorsNameLineAndField(t *testing.T) {
	good := klinike.Tasks(7)[klinike.SplitAll][:2]
	dir := t.TempDir()
	for _, tc := range badTasks() {
		t.Run(tc.name, func(t *testing.T) {
			bad := spoiled(t, good[1], tc)
			first, err := json.Marshal(good[0])
			require.NoError(t, err)
			second, err := json.Marshal(bad)
			require.NoError(t, err)
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			require.NoError(t, os.WriteFile(p, []byte(string(first)+"\n"+string(second)+"\n"), 0o644))
			_, err = benchtest.Library(klinike.Benchmark{}).Load(p)
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
	require.NoError(t, benchtest.Library(klinike.Benchmark{}).WriteJSONL(p, tasks))
	c, err := benchtest.Library(klinike.Benchmark{}).Load(p)
	require.NoError(t, err)
	require.Equal(t, tasks, c.Cases)
	ref, err := benchtest.Library(klinike.Benchmark{}).Load("builtin:klinike-test@7")
	require.NoError(t, err)
	require.Equal(t, tasks, ref.Cases)
}
