package contract_test

import (
	"encoding/json"
	"testing"

	"github.com/clinevo/clinevo/contract"
)

// FuzzStreamSpec reads any text as a stream's input as the Temporal CLI
// sends it (`temporal workflow start --input`, a user's JSON spec beside the
// YAML experiment specs): no panic, and a spec that validates encodes, reads
// back to the same encoding and validates again (issue 37, item 12).
func FuzzStreamSpec(f *testing.F) {
	for _, s := range []string{`{"run_id":"r1","corpus":"builtin:stream","limit":100,"stage_size":25}`,
		`{"run_id":"r1","corpus":"builtin:stream","rules":true,"rule_budgett":3}`, `{"run_id":"a/b","corpus":"builtin:stream"}`,
		`{"run_id":"r1","corpus":"builtin:stream","limit":-5,"activity_timeout_seconds":-10}`, `{"run_id":"r1","corpus":"x","limit":3.7}`,
		`{"run_id":"r1","corpus":"builtin:stream","case_ids":["病例-0002"]}`, `{"run_id":"r1","settings":{"episode":{"visit_cost":1e999}}}`,
		`{"run_id":"r1","corpus":"builtin:stream","state":{"cursor":-1}}`, `[]`, `null`, `{"run_id":`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var s contract.StreamSpec
		if json.Unmarshal([]byte(in), &s) != nil {
			return
		}
		s = s.WithDefaults()
		if s.Validate() != nil {
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("a valid spec does not encode: %v", err)
		}
		var back contract.StreamSpec
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("a valid spec's encoding does not read: %v", err)
		}
		again, err := json.Marshal(back)
		if err != nil || string(again) != string(b) {
			t.Fatalf("a valid spec reads back otherwise (%v):\n%s\n%s", err, b, again)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("a valid spec read back does not validate: %v", err)
		}
	})
}
