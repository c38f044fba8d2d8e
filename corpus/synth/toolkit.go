package synth

import (
	"math/rand/v2"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
)

// Generator is the version 2 case generator of a seed, the toolkit a
// benchmark's own synthetic corpus builds on: the condition table's base
// cases and the seeded draws; the benchmark adds its own parts.
type Generator struct{ g generator }

// NewGenerator is the version 2 generator of a seed.
func NewGenerator(seed uint64) Generator {
	cat := catalog.Default()
	return Generator{generator{version: V2, seed: seed, cat: cat, names: cat.Names()}}
}

// Order returns n row indexes of the condition table for a block of a
// split: whole permutations of the table, topped up at random.
func (g Generator) Order(split string, block, n int) []int { return g.g.order(split, block, n) }

// Rand is the seeded random source of a named draw: the same parts and seed
// give the same numbers.
func (g Generator) Rand(parts ...string) *rand.Rand { return g.g.rng(parts...) }

// Case is version 2's case of table row i as instance n of a split, and the
// ID of the fact each positive finding (p0, p1, ...) and pertinent negative
// (n0, n1, ...) of the row became.
func (g Generator) Case(i int, split string, n int) (clinic.Case, map[string]string) {
	return g.g.buildV2Refs(conditions[i], split, n, false, nil)
}

// Row is what a benchmark's corpus reads of one row of the condition table
// beyond its Condition summary.
type Row struct {
	Key string
	// Negatives is the number of pertinent negatives (facts n0, n1, ... of
	// Generator.Case).
	Negatives int
	// Exams are the body systems of the row's examination findings, in order
	// ("vitals" among them).
	Exams []string
	// Tests are the tests the row lists, then those it has extra results
	// for, in order.
	Tests []string
	// Referral and Urgency say where and how soon the condition is referred;
	// empty for one managed in primary care.
	Referral, Urgency string
}

// RowOf is row i of the condition table (i < len(Conditions())).
func RowOf(i int) Row {
	cd := conditions[i]
	r := Row{Key: cd.key, Negatives: len(cd.neg)}
	for _, e := range cd.exam {
		sys, _ := split2(e)
		r.Exams = append(r.Exams, sys)
	}
	for _, t := range append(append([]string(nil), cd.tests...), extraResults[cd.key]...) {
		name, _ := split2(t)
		r.Tests = append(r.Tests, name)
	}
	if cd.ref != "" {
		r.Referral, r.Urgency = split2(cd.ref)
	}
	return r
}
