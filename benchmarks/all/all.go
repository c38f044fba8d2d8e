// Package all lists the benchmarks this build plays. It is the one place that
// names every benchmark (ARCHITECTURE.md, "Profiles"): a new benchmark is its
// folder under benchmarks/ and one entry here. The engine builds its set from
// the list once.
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

// Benchmarks are the benchmarks of this build.
func Benchmarks() []bench.Benchmark {
	return []bench.Benchmark{medevoeval.Benchmark{}, medinquire.Benchmark{}, gpagent.Benchmark{}, klinike.Benchmark{}, sdbench.Benchmark{},
		ddxplus.Benchmark{}}
}

// Set is the set of this build's benchmarks.
func Set() (bench.Set, error) { return bench.NewSet(Benchmarks()...) }
