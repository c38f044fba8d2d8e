package corpus_test

import (
	"fmt"

	"github.com/clinevo/clinevo/bench"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// splitter is a benchmark with built-in corpora of its own (corpus.Builtins)
// on generator versions 2 and 3, its splits the synthetic stream's first
// cases renamed, and a member of its own in the answer key
// (corpus.CaseFields).
type splitter struct{ benchtest.Fake }

func (splitter) BuiltinSplits() map[string][]int {
	return map[string][]int{"toy": {synth.V2, synth.V3}, "toy-test": {synth.V2, synth.V3}}
}

func (splitter) Builtin(split string, version int, seed uint64) ([]clinic.Case, error) {
	cases, err := corpus.Library{}.Load(fmt.Sprintf("builtin:v%d:stream@%d", version, seed))
	if err != nil {
		return nil, err
	}
	out := append([]clinic.Case(nil), cases.Cases[:4]...)
	for i := range out {
		out[i].ID = fmt.Sprintf("%s-%04d", split, i+1)
	}
	return out, nil
}

// CaseFields names a member the splitter adds to the answer key.
func (splitter) CaseFields() (exam, manager []string) { return nil, []string{"management_label"} }

// toyLibrary reads cases with the splitter's splits beside the synthetic
// corpus.
func toyLibrary() corpus.Library {
	set, err := bench.NewSet(splitter{benchtest.Fake{N: "toy"}})
	if err != nil {
		panic(err) // one fixed name
	}
	return corpus.NewLibrary(set)
}
