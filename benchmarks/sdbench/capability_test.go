package sdbench_test

import (
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/experiments"
)

// The capabilities whose interfaces the package's code has no other reason
// to import: asserted here, so the benchmark's own imports stay the
// packages it uses.
var (
	_ experiments.Specs = sdbench.Benchmark{}
)
