package engine_test

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"testing"
)

// TestMain makes the directory buildBinary builds into, and runs up to four
// parallel tests at once unless -parallel says otherwise: the end-to-end
// tests of this package (each on its own embedded server and data directory)
// spend most of their time waiting on the server's queues, timers and
// subprocesses rather than on the CPU (TestStreamTiming alone: 14.6 s wall
// for 1.8 s of CPU), so more of them than cores overlap well. Four is
// clinevo's own choice. Tests that set environment variables (t.Setenv) or
// install global state are not parallel and run first, on their own.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		if err := flag.Set("test.parallel", fmt.Sprint(max(4, runtime.GOMAXPROCS(0)))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	dir, err := os.MkdirTemp("", "clinevo-engine-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
