package gpagent_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
)

// TestMain registers the benchmark, as the engine does.
func TestMain(m *testing.M) {
	if err := bench.Register(gpagent.Benchmark{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
