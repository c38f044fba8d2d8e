// Package scale holds the end-to-end test of an evaluation larger than a
// history could hold in one run: it plays thousands of episodes, so it lives
// in a package of its own, run beside the others.
package scale
