package medinquire

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// ArenaRelease is DiagnosisArena's published test split, byte for byte
// (data/diagnosisarena/README.md: source, licence and terms).
//
//go:embed data/diagnosisarena/test-00000-of-00001.parquet
var ArenaRelease []byte

// ArenaFile is the release's file name, as errors name it.
const ArenaFile = "data/diagnosisarena/test-00000-of-00001.parquet"

// ArenaSplit is the built-in split of the imported release: every case, in
// published order (its ids, 1 to 915). The release says nothing of when each
// case was published (no date, no journal issue), so there is no held-out
// split of the latest ones.
const ArenaSplit = ArenaSource

var _ corpus.Builtins = Benchmark{}

// BuiltinSplits is the one split; a published corpus does not change with
// the generator version, so every version names it.
func (Benchmark) BuiltinSplits() map[string][]int {
	var vs []int
	for v := synth.V1; v <= synth.Latest; v++ {
		vs = append(vs, v)
	}
	return map[string][]int{ArenaSplit: vs}
}

// Builtin imports the embedded release; the seed orders nothing (the order
// is the published one).
func (Benchmark) Builtin(split string, version int, _ uint64) ([]clinic.Case, error) {
	if split != ArenaSplit || !slices.Contains(Benchmark{}.BuiltinSplits()[ArenaSplit], version) {
		return nil, fmt.Errorf("medinquire has split %s, not %s of v%d", ArenaSplit, split, version)
	}
	cases, _, err := ImportArena(bytes.NewReader(ArenaRelease), ArenaFile, false)
	return cases, err
}
