package llm

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
)

func TestFirstObject(t *testing.T) {
	tests := []struct {
		name, reply, want, err string
	}{
		{"bare object", `{"a":1}`, `{"a":1}`, ""},
		{"code fence", "```json\n{\"a\":1}\n```", `{"a":1}`, ""},
		{"prose before and after", `Sure, here it is: {"a":1} Let me know.`, `{"a":1}`, ""},
		{"only the first of two objects", `{"a":1}{"b":2}`, `{"a":1}`, ""},
		{"nested objects stay whole", `{"a":{"b":{"c":1}}} tail`, `{"a":{"b":{"c":1}}}`, ""},
		{"braces inside strings", `{"q":"a } and a { in text","r":"\"}\""}`, `{"q":"a } and a { in text","r":"\"}\""}`, ""},
		{"a braced phrase in prose is passed over", `Fill in {fields}: {"a":1}`, `{"a":1}`, ""},
		{"no object", "I think it is a migraine.", "", "no JSON object in the reply"},
		{"cut off", `{"a":{"b":1}`, "", "the JSON object is incomplete"},
		{"balanced but not JSON", `{"a":1,}`, "", "invalid JSON"},
		{"the first error is reported", `{bad} and {also bad}`, "", "invalid character 'b'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := firstObject(tc.reply)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestCountExtraFields(t *testing.T) {
	type inner struct {
		Turn  int    `json:"turn"`
		Label string `json:"label"`
	}
	type embedded struct {
		Note string `json:"note"`
	}
	type reply struct {
		embedded
		Labels   []inner          `json:"labels"`
		ByName   map[string]inner `json:"by_name"`
		Skip     string           `json:"-"`
		Untagged string
		Free     any `json:"free"`
	}
	tests := []struct {
		name, obj string
		want      int
	}{
		{"known fields only", `{"labels":[{"turn":0,"label":"x"}],"note":"n","Untagged":"u"}`, 0},
		{"names match in any case, as encoding/json matches them", `{"LABELS":[],"Note":"n","untagged":"u"}`, 0},
		{"top-level extras", `{"confidence":0.7,"model":"m"}`, 2},
		{"an extra object counts once", `{"meta":{"a":1,"b":2}}`, 1},
		{"extras in list items and map values", `{"labels":[{"turn":0,"why":"x"},{"score":1}],"by_name":{"k":{"turn":1,"extra":true}}}`, 3},
		{"a field tagged - is unknown to JSON", `{"Skip":"s"}`, 1},
		{"anything goes inside an any field", `{"free":{"whatever":1}}`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, countExtraFields([]byte(tc.obj), reflect.TypeFor[reply]()))
		})
	}
	// The doctor's output type: harness fields are known, so only "confidence" is extra.
	require.Equal(t, 1, countExtraFields([]byte(`{"action":"ASK","topic":"onset","card_ids":[],"confidence":0.7}`), reflect.TypeFor[clinic.DoctorOutput]()))
}

func TestEnum(t *testing.T) {
	tests := []struct {
		got, want string
		ok        bool
	}{
		{"request_test", "REQUEST_TEST", true},
		{" Finalize ", "FINALIZE", true},
		{"ASK", "ASK", true},
		{"ask me", "ask me", false},
		{"", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.got, func(t *testing.T) {
			got, ok := Enum(tc.got, "ASK", "REQUEST_TEST", "CALL_MDT", "FINALIZE")
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

// countExtraFields counts the unknown fields of a JSON object for type t.
func countExtraFields(obj []byte, t reflect.Type) int {
	var v any
	if err := json.Unmarshal(obj, &v); err != nil {
		return 0
	}
	return extraFields(v, t)
}
