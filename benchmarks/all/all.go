// Package all lists the benchmarks this build plays. It is the one place that
// names every benchmark (ARCHITECTURE.md, "Profiles"): a new benchmark is its
// folder under bench/ and one entry here. The engine registers the list.
package all

import (
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
)

// Benchmarks are the benchmarks of this build, in registration order.
func Benchmarks() []bench.Benchmark {
	return []bench.Benchmark{medevoeval.Benchmark{}, medinquire.Benchmark{}, gpagent.Benchmark{}, klinike.Benchmark{}, sdbench.Benchmark{},
		ddxplus.Benchmark{}}
}
