// Package benchmarks holds the long end-to-end runs of the registered
// benchmarks' shipped experiments on the embedded server. They live in a
// package of their own so that go test runs them beside the engine package's
// tests. (The held-out evaluation too large for one history is in
// engine/durability.)
package benchmarks
