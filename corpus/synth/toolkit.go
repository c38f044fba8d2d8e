package synth

import (
	"math/rand/v2"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
)

// The toolkit a benchmark's own synthetic corpus builds on (bench/<x>/):
// version 2's cases of the condition table, deterministic by seed.

// Generator builds version 2 cases of the condition table for a seed.
type Generator struct{ g generator }

// NewGenerator is the generator of a seed, on the default catalog.
func NewGenerator(seed uint64) Generator {
	cat := catalog.Default()
	return Generator{generator{version: V2, seed: seed, cat: cat, names: cat.Names()}}
}

// Rand is the generator's random source for a purpose named by parts: the
// same parts give the same draws, whatever else was generated.
func (g Generator) Rand(parts ...string) *rand.Rand { return g.g.rng(parts...) }

// Order returns n row indexes of the condition table for a block of a
// split: whole permutations of the table, topped up at random.
func (g Generator) Order(split string, block, n int) []int { return g.g.order(split, block, n) }

// RowCase is version 2's case of table row i as instance n of a split, and
// the ID of the fact each positive finding (p0, p1, ...) and pertinent
// negative (n0, n1, ...) of the row became.
func (g Generator) RowCase(i int, split string, n int) (clinic.Case, map[string]string) {
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
