// Package e2e holds the end-to-end runs of the sdbench benchmark's shipped
// experiment on the embedded Temporal server (engine/enginetest). They are a
// package of their own so that the benchmark's unit tests do not link the
// server, and the race detector's run in CI can leave them out.
package e2e
