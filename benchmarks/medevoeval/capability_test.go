package medevoeval_test

import (
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/experiments"
)

// The capabilities whose interfaces the package's code has no other reason
// to import: asserted here, so the benchmark's own imports stay the
// packages it uses.
var (
	_ experiments.Specs = medevoeval.Benchmark{}
)
