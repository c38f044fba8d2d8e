// Package benchmarks holds the end-to-end runs of the registered benchmarks'
// shipped experiments on the embedded server: they live in a package of their
// own so that go test runs them beside the engine package's tests.
package benchmarks
