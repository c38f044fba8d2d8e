package engine_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestMain runs up to four parallel tests at once unless -parallel says
// otherwise (see enginetest.Parallel; four is clinevo's own choice). Tests
// that set environment variables (t.Setenv) or install global state are not
// parallel and run first, on their own.
func TestMain(m *testing.M) {
	if err := enginetest.Parallel(4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

type quietLogger = enginetest.Quiet
