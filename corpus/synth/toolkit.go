package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
)

// The toolkit a benchmark's own synthetic corpus builds on (bench/<x>/):
// version 2's cases of the condition table, deterministic by seed, and the
// means to turn one into a variant of the condition.

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

// Case builds the n-th case of split for a condition of the table, the
// patient's age drawn from age ("55-80") where it is set; an opening in
// avoid is not used.
func (g Generator) Case(condition, split string, n int, age string, avoid map[string]bool) (clinic.Case, error) {
	cd, ok := conditionByKey(condition)
	if !ok {
		return clinic.Case{}, fmt.Errorf("synth: no condition %q in the table", condition)
	}
	if age != "" {
		cd.age = age
	}
	return g.g.buildV2(cd, split, n, false, avoid), nil
}

// Revision turns a condition's case into a variant of it: facts that
// contradict the variant dropped, its own facts added, findings and results
// put in place of the system's and the test's.
type Revision struct {
	// Drop are substrings of the condition's facts that contradict the
	// variant: a fact holding one is dropped.
	Drop []string
	// Facts are "topic|text" facts to add, with IDs FactPrefix1, 2, ...;
	// their topics become must-ask topics.
	Facts      []string
	FactPrefix string
	// Findings are "system|finding"s, each in place of the system's.
	Findings []string
	// Results are "catalog test|result"s, each in place of the test's.
	Results []string
}

// Revise applies a revision to a case of the table (built by Case) and
// returns the case's evidence key points still supported by what it holds:
// a key point that rested on a dropped or replaced item is left out. The
// must-ask topics keep those the remaining facts still cover.
func Revise(c *clinic.Case, rev Revision) ([]string, error) {
	cd, ok := conditionByKey(c.Condition)
	if !ok {
		return nil, fmt.Errorf("synth: case %s: no condition %q in the table", c.ID, c.Condition)
	}
	dropped := reviseFacts(c, cd, rev)
	dropped = append(dropped, replaceFindings(c, cd, rev.Findings)...)
	dropped = append(dropped, replaceResults(c, rev.Results)...)
	return keepSupported(cd, c.Manager.Evidence, dropped), nil
}

// reviseFacts drops the facts that contradict the variant, adds its facts,
// and keeps the must-ask topics the facts still cover plus the new facts'
// topics. It returns the support references (see evidenceSupport) of the
// dropped facts.
func reviseFacts(c *clinic.Case, cd condition, rev Revision) []string {
	contradicts := func(text string) bool {
		for _, d := range rev.Drop {
			if strings.Contains(strings.ToLower(text), strings.ToLower(d)) {
				return true
			}
		}
		return false
	}
	var dropped []string
	for i, p := range cd.pos {
		if _, text, _ := splitFact(p); contradicts(text) {
			dropped = append(dropped, "p"+strconv.Itoa(i))
		}
	}
	for i, p := range cd.neg {
		if _, text, _ := splitFact(p); contradicts(text) {
			dropped = append(dropped, "n"+strconv.Itoa(i))
		}
	}
	var facts []clinic.Fact
	for _, f := range c.Patient.Facts {
		if !contradicts(f.Text) {
			facts = append(facts, f)
		}
	}
	covered := map[string]bool{}
	for _, f := range facts {
		for _, t := range f.Topics {
			covered[t] = true
		}
	}
	var mustAsk []string
	for _, t := range c.Manager.MustAsk {
		if covered[t] {
			mustAsk = append(mustAsk, t)
		}
	}
	for i, fl := range rev.Facts {
		topic, text := split2(fl)
		facts = append(facts, clinic.Fact{ID: rev.FactPrefix + strconv.Itoa(i+1), Text: text, Topics: []string{topic}})
		if !slices.Contains(mustAsk, topic) {
			mustAsk = append(mustAsk, topic)
		}
	}
	c.Patient.Facts, c.Manager.MustAsk = facts, mustAsk
	return dropped
}

// replaceFindings puts findings in place of the system's finding and returns
// the support references of the findings replaced.
func replaceFindings(c *clinic.Case, cd condition, exam []string) []string {
	var dropped []string
	for _, e := range exam {
		sys, text := split2(e)
		c.Exam.Findings = slices.DeleteFunc(c.Exam.Findings, func(f clinic.Finding) bool { return f.System == sys })
		c.Exam.Findings = append(c.Exam.Findings, clinic.Finding{System: sys, Text: text, Abnormal: true})
		for i, x := range cd.exam {
			if s, _ := split2(x); s == sys {
				dropped = append(dropped, "e"+strconv.Itoa(i))
			}
		}
	}
	return dropped
}

// replaceResults puts results in place of the test's result and returns the
// support references of the results replaced.
func replaceResults(c *clinic.Case, tests []string) []string {
	var dropped []string
	for _, t := range tests {
		name, res := split2(t)
		found := false
		for i := range c.Exam.Tests {
			if c.Exam.Tests[i].Name == name {
				c.Exam.Tests[i].Result, c.Exam.Tests[i].Abnormal, found = res, true, true
			}
		}
		if !found {
			c.Exam.Tests = append(c.Exam.Tests, clinic.TestValue{Name: name, Result: res, Abnormal: true})
			sort.SliceStable(c.Exam.Tests, func(i, j int) bool { return c.Exam.Tests[i].Name < c.Exam.Tests[j].Name })
		}
		dropped = append(dropped, "t:"+name)
	}
	return dropped
}

// keepSupported keeps the evidence key points whose support does not rest on
// a dropped or replaced item.
func keepSupported(cd condition, points []string, dropped []string) []string {
	present := map[string]bool{}
	for i := range cd.pos {
		present["p"+strconv.Itoa(i)] = true
	}
	for i := range cd.neg {
		present["n"+strconv.Itoa(i)] = true
	}
	for i := range cd.exam {
		present["e"+strconv.Itoa(i)] = true
	}
	for _, t := range append(append(slices.Clone(cd.tests), extraResults[cd.key]...), cd.shift...) {
		name, _ := split2(t)
		present["t:"+name] = true
	}
	for _, d := range dropped {
		present[d] = false
	}
	var out []string
	for _, p := range points {
		i := slices.Index(cd.evi, p)
		if i >= 0 && supported(evidenceSupport[cd.key][i], present) {
			out = append(out, p)
		}
	}
	return out
}

// CompleteExam adds an unremarkable finding for every system of systems the
// findings do not examine (vital signs drawn in the normal range, another
// system one of normal[system]), and orders the findings by system.
func CompleteExam(fs []clinic.Finding, systems []string, normal map[string][]string, r *rand.Rand) []clinic.Finding {
	for _, sys := range systems {
		if hasSystem(fs, sys) {
			continue
		}
		text := normalVitals(r)
		if sys != "vitals" {
			text = pick(r, normal[sys]...)
		}
		fs = append(fs, clinic.Finding{System: sys, Text: text})
	}
	sort.SliceStable(fs, func(i, j int) bool { return systemRank(fs[i].System) < systemRank(fs[j].System) })
	return fs
}

// Pair reads a table entry "a|b" as its two parts, trimmed.
func Pair(s string) (string, string) { return split2(s) }

// List reads a table entry "a; b" as its items, trimmed, empty ones left out.
func List(s string) []string { return list(s) }

func conditionByKey(key string) (condition, bool) {
	for _, cd := range conditions {
		if cd.key == key {
			return cd, true
		}
	}
	return condition{}, false
}

// HistoryFacts are a condition's positive and negative history facts as the
// table spells them (before the generator varies their wording); false for a
// condition the table does not have.
func HistoryFacts(condition string) ([]string, bool) {
	cd, ok := conditionByKey(condition)
	if !ok {
		return nil, false
	}
	var out []string
	for _, f := range append(slices.Clone(cd.pos), cd.neg...) {
		_, text, _ := splitFact(f)
		out = append(out, text)
	}
	return out, true
}

// Varies reports whether s holds a word the generator varies in a fact's
// wording ("started" may be said "began"): a substring that must match a
// fact should hold none.
func Varies(s string) bool {
	for _, p := range synonyms {
		if strings.Contains(s, p[0]) {
			return true
		}
	}
	return false
}

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
