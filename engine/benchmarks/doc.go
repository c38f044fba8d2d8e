// Package benchmarks holds the long end-to-end runs on the embedded server:
// the registered benchmarks' shipped experiments, and a held-out evaluation
// larger than one run's history could hold (600 episodes, three runs of the
// evaluation: TestHeldOutEvaluationContinuesAsNew; 2,500 in
// BenchmarkHeldOutEvaluation2500). They live in a package of their own so
// that go test runs them beside the engine package's tests.
package benchmarks
