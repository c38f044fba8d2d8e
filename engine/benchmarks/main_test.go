package benchmarks_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestMain runs up to four parallel tests at once unless -parallel says
// otherwise (see enginetest.Parallel; four is clinevo's own choice).
func TestMain(m *testing.M) {
	if err := enginetest.Parallel(4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
