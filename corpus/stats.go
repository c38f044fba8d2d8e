package corpus

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// WriteStats prints a summary of a corpus: sizes, openings, evidence key
// point variation and tests whose availability depends on the condition.
func WriteStats(w io.Writer, c *Corpus) {
	n := len(c.Cases)
	by := func(key func(i int) string) map[string]int {
		m := map[string]int{}
		for i := range c.Cases {
			m[key(i)]++
		}
		return m
	}
	facts, tests, evi, mgmt, referrals := 0, 0, 0, 0, 0
	for _, cs := range c.Cases {
		facts += len(cs.Patient.Facts)
		tests += len(cs.Exam.Tests)
		evi += len(cs.Manager.Evidence)
		if len(cs.Manager.Management) > 0 {
			mgmt++
		}
		if cs.Manager.Referral != nil && cs.Manager.Referral.Needed {
			referrals++
		}
	}
	fmt.Fprintf(w, "corpus %s: %d cases\n", c.Name, n)
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "facts per case %.1f, test results per case %.1f, evidence key points per case %.1f\n",
		float64(facts)/float64(n), float64(tests)/float64(n), float64(evi)/float64(n))
	fmt.Fprintf(w, "cases with management key points %d (%.0f%%), needing referral %d\n", mgmt, 100*float64(mgmt)/float64(n), referrals)
	section := func(title string, m map[string]int, limit int) {
		keys := sortedKeys(m)
		sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
		var parts []string
		for i, k := range keys {
			if limit > 0 && i == limit {
				parts = append(parts, fmt.Sprintf("... (%d more)", len(keys)-limit))
				break
			}
			if k == "" {
				k = "-"
			}
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		fmt.Fprintf(w, "%s (%d): %s\n", title, len(keys), strings.Join(parts, ", "))
	}
	section("splits", by(func(i int) string { return c.Cases[i].Meta.Split }), 0)
	section("stages", by(func(i int) string {
		if c.Cases[i].Meta.Stage == 0 {
			return ""
		}
		s := fmt.Sprintf("s%02d", c.Cases[i].Meta.Stage)
		if c.Cases[i].Meta.Shifted {
			s += "*"
		}
		return s
	}), 0)
	section("systems", by(func(i int) string { return c.Cases[i].System }), 0)
	section("conditions", by(func(i int) string { return c.Cases[i].Condition }), 20)
	section("personalities", by(func(i int) string { return c.Cases[i].Patient.Persona.Personality }), 0)
	section("recall", by(func(i int) string { return c.Cases[i].Patient.Persona.Recall }), 0)
	section("sources", by(func(i int) string { return c.Cases[i].Provenance.Source }), 0)
	o := Openings(c)
	fmt.Fprintf(w, "openings: %d distinct (normalised) in %d cases, at least %d per condition\n", o.Distinct, o.Cases, o.MinPerCondition)
	fmt.Fprintf(w, "evidence key points vary between cases in %d of %d conditions\n", o.VaryingEvidence, o.Conditions)
	gaps := TestAvailability(c)
	fmt.Fprintf(w, "tests whose availability depends on the condition: %d\n", len(gaps))
	for _, g := range gaps {
		fmt.Fprintf(w, "  %s\n", g)
	}
}

// ConditionOf names the condition a case belongs to: its condition key, or its
// normalised reference diagnosis where the key is empty (an imported case).
// A case is "seen" by a run when its label is that of one of the run's stream cases.
func ConditionOf(c *clinic.Case) string {
	if c.Condition != "" {
		return c.Condition
	}
	return textmatch.Normalize(c.Manager.Diagnosis.Name)
}

// canonicalTest names a test as the built-in catalog does, or by its key.
func canonicalTest(name string) string {
	if it, m := catalog.Default().Lookup(name); m != catalog.MatchNone {
		return it.Name
	}
	return catalog.Key(name)
}

// AvailabilityGap is a billable test whose availability differs between
// conditions: a doctor could probe it to learn the diagnosis.
type AvailabilityGap struct {
	Test string
	// Always lists the conditions where every case has a result, Never those
	// where no case has one, Sometimes the rest.
	Always, Never, Sometimes []string
}

// TestAvailability returns the billable tests (any test named in a case's
// catalog or results, physical examination aside, which always answers) whose
// share of cases with a result is not the same for every condition, in name order.
func TestAvailability(c *Corpus) []AvailabilityGap {
	tests := map[string]bool{}
	cases := map[string]int{}
	with := map[string]map[string]int{} // test -> condition -> cases with a result
	for i := range c.Cases {
		cs := &c.Cases[i]
		cond := ConditionOf(cs)
		cases[cond]++
		for _, n := range cs.Exam.Catalog {
			tests[canonicalTest(n)] = true
		}
		has := map[string]bool{}
		for _, tv := range cs.Exam.Tests {
			t := canonicalTest(tv.Name)
			tests[t] = true
			if !has[t] {
				has[t] = true
				if with[t] == nil {
					with[t] = map[string]int{}
				}
				with[t][cond]++
			}
		}
	}
	var out []AvailabilityGap
	for _, t := range sortedKeys(tests) {
		if catalog.Infer(t) == catalog.Exam {
			continue
		}
		g := AvailabilityGap{Test: t}
		for _, cond := range sortedKeys(cases) {
			switch n := with[t][cond]; {
			case n == cases[cond]:
				g.Always = append(g.Always, cond)
			case n == 0:
				g.Never = append(g.Never, cond)
			default:
				g.Sometimes = append(g.Sometimes, cond)
			}
		}
		if len(g.Always) != len(cases) && len(g.Never) != len(cases) {
			out = append(out, g)
		}
	}
	return out
}

// String says which conditions give the test away.
func (g AvailabilityGap) String() string {
	n := len(g.Always) + len(g.Never) + len(g.Sometimes)
	s := fmt.Sprintf("%s: a result in every case of %d of %d conditions", g.Test, len(g.Always), n)
	if len(g.Always) > 0 {
		s += " (" + abbreviate(g.Always, 6) + ")"
	}
	s += fmt.Sprintf(", in none of %d", len(g.Never))
	if len(g.Never) > 0 {
		s += " (" + abbreviate(g.Never, 6) + ")"
	}
	if len(g.Sometimes) > 0 {
		s += fmt.Sprintf(", in some of %d (%s)", len(g.Sometimes), abbreviate(g.Sometimes, 6))
	}
	return s
}

func abbreviate(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// CheckAvailability is validate --strict: an error naming every test whose
// availability depends on the condition, and the conditions, or nil.
func CheckAvailability(c *Corpus) error {
	gaps := TestAvailability(c)
	if len(gaps) == 0 {
		return nil
	}
	lines := make([]string, len(gaps))
	for i, g := range gaps {
		lines[i] = "  " + g.String()
	}
	return fmt.Errorf("%s: strict: whether a test returns a result depends on the condition for %d tests, so requesting them can reveal the diagnosis:\n%s",
		c.Name, len(gaps), strings.Join(lines, "\n"))
}

// OpeningStats describes how varied a corpus's opening complaints are.
type OpeningStats struct {
	Cases    int
	Distinct int // distinct normalised openings
	// MinPerCondition is the fewest distinct openings of any condition.
	MinPerCondition int
	// VaryingEvidence counts the conditions whose cases do not all carry the
	// same evidence key points; Conditions counts the conditions.
	VaryingEvidence, Conditions int
}

// Openings summarises a corpus's openings and evidence key points.
func Openings(c *Corpus) OpeningStats {
	s := OpeningStats{Cases: len(c.Cases)}
	all := map[string]bool{}
	per := map[string]map[string]bool{}
	evi := map[string]map[string]bool{}
	for i := range c.Cases {
		cs := &c.Cases[i]
		cond := ConditionOf(cs)
		o := textmatch.Normalize(cs.Patient.OpeningComplaint)
		all[o] = true
		if per[cond] == nil {
			per[cond], evi[cond] = map[string]bool{}, map[string]bool{}
		}
		per[cond][o] = true
		evi[cond][strings.Join(cs.Manager.Evidence, "\n")] = true
	}
	s.Distinct, s.Conditions = len(all), len(per)
	for cond, os := range per {
		if s.MinPerCondition == 0 || len(os) < s.MinPerCondition {
			s.MinPerCondition = len(os)
		}
		if len(evi[cond]) > 1 {
			s.VaryingEvidence++
		}
	}
	return s
}

// Overlap is how many openings of one corpus another corpus also has.
type Overlap struct {
	Cases          int      // cases of the first corpus
	SharedCases    int      // of which their normalised opening is an opening of the second
	SharedOpenings []string // the distinct shared normalised openings, sorted
}

// OpeningOverlap compares the normalised openings of a against those of b:
// held-out cases whose opening the stream has already shown measure recall,
// not transfer.
func OpeningOverlap(a, b *Corpus) Overlap {
	inB := map[string]bool{}
	for i := range b.Cases {
		inB[textmatch.Normalize(b.Cases[i].Patient.OpeningComplaint)] = true
	}
	o := Overlap{Cases: len(a.Cases)}
	shared := map[string]bool{}
	for i := range a.Cases {
		if k := textmatch.Normalize(a.Cases[i].Patient.OpeningComplaint); inB[k] {
			o.SharedCases++
			shared[k] = true
		}
	}
	o.SharedOpenings = sortedKeys(shared)
	return o
}

// Novelty is how many cases of one corpus are on a condition another corpus
// never shows: a held-out score on those measures transfer to an unmet
// condition, the rest recall or transfer within a met one.
type Novelty struct {
	Cases, UnseenCases int
	// Conditions counts the distinct conditions of the first corpus; Unseen
	// lists those the second corpus has no case of, sorted.
	Conditions int
	Unseen     []string
}

// Share is the unseen cases' share of all cases (0 for an empty corpus).
func (n Novelty) Share() float64 {
	if n.Cases == 0 {
		return 0
	}
	return float64(n.UnseenCases) / float64(n.Cases)
}

// ConditionNovelty compares the conditions of a against those of b (a case's
// condition key, or its normalised diagnosis where the key is empty; see
// clinic.ConditionLabel).
func ConditionNovelty(a, b *Corpus) Novelty {
	inB := map[string]bool{}
	for i := range b.Cases {
		inB[ConditionOf(&b.Cases[i])] = true
	}
	n := Novelty{Cases: len(a.Cases)}
	conds, unseen := map[string]bool{}, map[string]bool{}
	for i := range a.Cases {
		k := ConditionOf(&a.Cases[i])
		conds[k] = true
		if !inB[k] {
			n.UnseenCases++
			unseen[k] = true
		}
	}
	n.Conditions, n.Unseen = len(conds), sortedKeys(unseen)
	return n
}

// WriteOverlap prints ConditionNovelty(a, b) and OpeningOverlap(a, b).
func WriteOverlap(w io.Writer, a, b *Corpus) {
	nv := ConditionNovelty(a, b)
	fmt.Fprintf(w, "conditions of %s unseen in %s: %d of %d conditions, %d of %d cases (%.1f%%)\n",
		a.Name, b.Name, len(nv.Unseen), nv.Conditions, nv.UnseenCases, nv.Cases, 100*nv.Share())
	if len(nv.Unseen) > 0 {
		fmt.Fprintf(w, "  unseen: %s\n", abbreviate(nv.Unseen, 20))
	}
	o := OpeningOverlap(a, b)
	fmt.Fprintf(w, "openings of %s seen in %s: %d shared normalised openings, %d of %d cases\n", a.Name, b.Name, len(o.SharedOpenings), o.SharedCases, o.Cases)
	for i, s := range o.SharedOpenings {
		if i == 10 {
			fmt.Fprintf(w, "  ... (%d more)\n", len(o.SharedOpenings)-10)
			break
		}
		fmt.Fprintf(w, "  %q\n", s)
	}
}
