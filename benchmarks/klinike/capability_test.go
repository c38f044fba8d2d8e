package klinike_test

import (
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/rescore"
)

// The capabilities whose interfaces the package's code has no other reason
// to import: asserted here, so the benchmark's own imports stay the
// packages it uses.
var (
	_ experiments.Specs = klinike.Benchmark{}
	_ rescore.Rescorer  = klinike.Benchmark{}
)
