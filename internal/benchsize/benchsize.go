// Package benchsize is the size knob of the benchmarks the documentation
// cites. A benchmark reads it to play its smallest size, so that CI (.ci/run)
// runs every cited benchmark once and a benchmark that no longer runs fails
// CI instead of rotting while docs/performance.md keeps quoting it. The
// figures are measured at the full size, with the variable unset.
package benchsize

import "os"

// Env is the environment variable that asks for the smallest size: set to 1,
// every cited benchmark plays a handful of episodes with short model
// latencies (clinevo's choice: enough to run every code path the full size
// runs, small enough that all of them take about a minute together).
const Env = "CLINEVO_BENCH_SMALL"

// Small reports whether the smallest size is asked for.
func Small() bool { return os.Getenv(Env) == "1" }

// Pick returns small when the smallest size is asked for, full otherwise.
func Pick[T any](full, small T) T {
	if Small() {
		return small
	}
	return full
}
