package durability_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestMain makes the directory buildBinary builds into, and runs the
// package's seven tests at once unless -parallel says otherwise (see
// enginetest.Parallel): they spend most of their time waiting, for Temporal
// after a kill and for the outage to end (clinevo's own choice).
func TestMain(m *testing.M) {
	if err := enginetest.Parallel(7); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "clinevo-durability-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
