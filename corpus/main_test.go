package corpus_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/clinevo/clinevo/engine"
)

// TestMain registers the benchmarks, as every entry point of clinevo does.
func TestMain(m *testing.M) {
	if err := engine.RegisterBenchmarks(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
