package enginetest

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"testing"
)

// Parallel makes the package's parallel tests run up to n at once (or
// GOMAXPROCS, if more) unless -parallel was given; call it from TestMain
// before m.Run. It parses the test flags. End-to-end tests, each on its own
// embedded server and data directory, spend part of their time waiting on the
// server's queues and timers, on retry backoffs and on subprocesses rather
// than on the CPU, so more of them than cores overlap; go test's default is
// GOMAXPROCS.
func Parallel(n int) error {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if explicit {
		return nil
	}
	if err := flag.Set("test.parallel", fmt.Sprint(max(n, runtime.GOMAXPROCS(0)))); err != nil {
		return fmt.Errorf("enginetest: %w", err)
	}
	return nil
}

// Setenv sets an environment variable that only the calling test reads (a
// name of its own, such as a fake model's key variable) and restores it at
// cleanup. Unlike t.Setenv it is allowed in parallel tests: t.Setenv refuses
// them because most variables are read by every test, which a variable of the
// test's own is not.
func Setenv(t testing.TB, key, value string) {
	t.Helper()
	old, had := os.LookupEnv(key)
	if err := os.Setenv(key, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	})
}
