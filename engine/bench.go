package engine

import (
	"fmt"
	"sync"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/gpagent"
	"github.com/clinevo/clinevo/bench/klinike"
	"github.com/clinevo/clinevo/bench/medevoeval"
	"github.com/clinevo/clinevo/bench/medinquire"
	"github.com/clinevo/clinevo/bench/sdbench"
)

// Benchmarks are the benchmarks this build plays. This is the one place in
// clinevo outside bench/ that names them (ARCHITECTURE.md, "Profiles"): a new
// benchmark is its folder under bench/ and one line here.
func Benchmarks() []bench.Benchmark {
	return []bench.Benchmark{medevoeval.Benchmark{}, medinquire.Benchmark{}, gpagent.Benchmark{}, klinike.Benchmark{}, sdbench.Benchmark{}}
}

var (
	registerOnce sync.Once
	registerErr  error
)

// RegisterBenchmarks registers Benchmarks with the bench registry, once per
// process. Every entry point (the CLI, a worker, an in-process run) calls it
// before it reads settings; Open and RolesFor call it themselves.
func RegisterBenchmarks() error {
	registerOnce.Do(func() {
		for _, b := range Benchmarks() {
			if err := bench.Register(b); err != nil {
				registerErr = fmt.Errorf("engine: %w", err)
				return
			}
		}
	})
	return registerErr
}
