package engine

import (
	"sync"

	"github.com/clinevo/clinevo/benchmarks/all"
)

// Benchmarks is the set of benchmarks this build plays (benchmarks/all lists
// them), built once per process: the engine hands it, or the one benchmark a
// run's settings select, down to every part it wires.
var Benchmarks = sync.OnceValues(all.Set)
