package engine

import (
	"fmt"
	"sync"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/all"
)

// Benchmarks are the benchmarks this build plays (benchmarks/all names them).
func Benchmarks() []bench.Benchmark { return all.Benchmarks() }

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
