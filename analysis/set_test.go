package analysis_test

import (
	"math"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
)

// The benchmarks these tests report on: MedEvoEval (the default profile,
// which defines U), one that declares no U (as Med-Inquire), and one with a
// headline cost and accuracy (as SDBench), each declared as the report reads
// declarations.
const (
	noUProfile    = "no-u"
	costedProfile = "costed"
)

func testSet() bench.Set {
	inf := math.Inf(1)
	noU := benchtest.Fake{N: noUProfile, M: []bench.Metric{
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Headline: true, Doc: "S"},
		{Name: "grade", Shared: true, Title: "grade", Min: 0, Max: 100, Headline: true, Doc: "grade"}}}
	costed := benchtest.Fake{N: costedProfile, M: []bench.Metric{
		{Name: "correct", Title: "accuracy", Min: 0, Max: 1, Headline: true, Doc: "correct"},
		{Name: "cost_usd", Shared: true, Title: "cost (USD)", Min: 0, Max: inf, Direction: bench.LowerBetter, Headline: true, Doc: "cost"},
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Doc: "correct"}}}
	set, err := bench.NewSet(medevoeval.Benchmark{}, noU, costed)
	if err != nil {
		panic(err) // three fixed, distinct names
	}
	return set
}

// gated is a benchmark with a role of its own (as SDBench's gatekeeper).
type gated struct{ benchtest.Fake }

func (gated) Roles() []string { return []string{"gatekeeper"} }
