package klinike_test

import (
	"testing"

	"github.com/clinevo/clinevo/benchmarks/klinike"
)

// FuzzParseCall reads any text as a tool call spelled tool(name=value, ...)
// (rule and card texts carry them): no panic, and a call it accepts spells
// back to one it reads the same.
func FuzzParseCall(f *testing.F) {
	for _, s := range []string{"order_imaging(modality=ct, region=head)", "record_diagnosis", "x(", "x(a=1, a=2)", "(a=1)", "x(a)", "x(=1)",
		"tool(name=value with spaces, other=ok)", "x)", "", "\x00(\xff=1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := klinike.ParseCall(in)
		if err != nil {
			return
		}
		again, err := klinike.ParseCall(c.String())
		if err != nil {
			t.Fatalf("%q reads, its spelling %q does not: %v", in, c.String(), err)
		}
		if again.String() != c.String() {
			t.Fatalf("%q: %q then %q", in, c.String(), again.String())
		}
	})
}
