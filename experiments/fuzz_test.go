package experiments_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/clinevo/clinevo/benchmarks/all"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// FuzzParse reads any file as an experiment spec: no panic, no hang (YAML
// aliases that expand without bound are the decoder's to refuse), and a
// spec it accepts validates again.
func FuzzParse(f *testing.F) {
	set, err := all.Set()
	if err != nil {
		f.Fatal(err)
	}
	// The shipped specs in name order (seed#N names one spec every run),
	// each parsed once here: a spec naming a large built-in corpus
	// (DiagnosisArena's 915 cases) loads it for seconds the first time, and
	// in a fuzz worker that first time counted against the 10 s the fuzzer
	// gives an input ("fuzzing process hung", with two workers on a loaded
	// machine); the library keeps it for the inputs after.
	shipped := experiments.Shipped(set)
	for _, name := range slices.Sorted(maps.Keys(shipped)) {
		if _, err := experiments.Parse(name, shipped[name], settings.Default(), set); err != nil {
			f.Fatalf("shipped spec %s: %v", name, err)
		}
		f.Add(string(shipped[name]))
	}
	for _, s := range []string{"", "name: x\n", "- a\n", "name: x\nlimit: 3.7\nconditions: [{name: A, kind: stream}]\ncorpus: builtin:stream\n",
		"a: &a [*a, *a]\n", "name: x\nsettings: {scoring: {lambda: .inf}}\n", "\x00\xff", "name: [\n", "{{{{{{{{{{", "name: !!binary AAAA\n",
		"name: x\ncorpus: builtin:stream\nconditions:\n  - {name: A, kind: stream, limit: 99999999999999999999}\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		spec, err := experiments.Parse("spec.yaml", []byte(in), settings.Default(), set)
		if err != nil {
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("an accepted spec does not validate: %v", err)
		}
	})
}
