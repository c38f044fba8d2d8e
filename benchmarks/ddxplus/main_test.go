package ddxplus_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
)

// TestMain registers the benchmark, and only it: its tests play it alone.
func TestMain(m *testing.M) {
	if err := bench.Register(ddxplus.Benchmark{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
