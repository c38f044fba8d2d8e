// Package scale holds the end-to-end test of an evaluation larger than one
// run's history could hold: the test plays 600 episodes (three runs of the
// evaluation), and BenchmarkHeldOutEvaluation2500 plays 2,500.
package scale
