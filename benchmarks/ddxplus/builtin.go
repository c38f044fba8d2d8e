package ddxplus

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"sync"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// data are the release's two dictionaries, whole, and the first 300 test
// patients of a public subset of its test set, under the release's licence
// (data/LICENSE.txt, data/README.md).
//
//go:embed data/release_evidences.json data/release_conditions.json data/release_test_patients_sample300.csv
var data embed.FS

// SampleFile is the shipped patients file.
const SampleFile = "release_test_patients_sample300.csv"

// Split is the built-in corpus: the shipped test patients in the file's order.
const Split = "ddxplus"

// Embedded is the release's dictionary as shipped; it is read once.
var Embedded = sync.OnceValues(func() (*Dictionary, error) {
	ev, err := data.ReadFile(path.Join("data", EvidencesFile))
	if err != nil {
		return nil, err
	}
	cond, err := data.ReadFile(path.Join("data", ConditionsFile))
	if err != nil {
		return nil, err
	}
	return ReadDictionary(bytes.NewReader(ev), EvidencesFile, bytes.NewReader(cond), ConditionsFile)
})

var _ corpus.Builtins = Benchmark{}

// BuiltinSplits is the shipped sample, the same under every generator
// version: a published set is not generated.
func (Benchmark) BuiltinSplits() map[string][]int {
	var vs []int
	for v := synth.V1; v <= synth.Latest; v++ {
		vs = append(vs, v)
	}
	return map[string][]int{Split: vs}
}

// Builtin is the shipped sample in its file's order, whatever the version
// and seed: a published set has one order, and a stream plays it as it is
// (StreamBench §3.1 fixes one shuffled order of its own for the same reason).
func (Benchmark) Builtin(split string, _ int, _ uint64) ([]clinic.Case, error) {
	if split != Split {
		return nil, fmt.Errorf("benchmark %s has no split %q, want %s", Name, split, Split)
	}
	d, err := Embedded()
	if err != nil {
		return nil, err
	}
	raw, err := data.ReadFile(path.Join("data", SampleFile))
	if err != nil {
		return nil, err
	}
	cases, _, err := d.ReadPatients(bytes.NewReader(raw), SampleFile, false)
	return cases, err
}
