// Package outage holds the end-to-end tests of runs that wait out an outage
// of what they depend on (the results database, a model endpoint, the Qdrant
// bank): each takes its dependency away for longer than a minute, in
// parallel with the others, so they live in a package of their own and do not
// lengthen the engine package's tests.
package outage
