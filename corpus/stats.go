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

// Stats summarises a corpus: sizes, counts by split, stage, system,
// condition, persona and source, openings, evidence key point variation and
// tests whose availability depends on the condition.
type Stats struct {
	Corpus          string  `json:"corpus"`
	Cases           int     `json:"cases"`
	FactsPerCase    float64 `json:"facts_per_case"`
	TestsPerCase    float64 `json:"test_results_per_case"`
	EvidencePerCase float64 `json:"evidence_key_points_per_case"`
	ManagementCases int     `json:"cases_with_management"`
	Referrals       int     `json:"cases_needing_referral"`
	// RedactedCases are the cases whose importer withheld a text naming the
	// diagnosis (Provenance.Redactions), Redactions how many texts in all.
	RedactedCases int `json:"redacted_cases"`
	Redactions    int `json:"redactions"`
	// Counts maps a facet (splits, stages, systems, conditions,
	// personalities, recall, sources) to its values' case counts, most
	// cases first; "" is a case without a value, a stage with * a shifted one.
	Counts           map[string][]ValueCount `json:"counts"`
	Openings         OpeningStats            `json:"openings"`
	AvailabilityGaps []AvailabilityGap       `json:"availability_gaps"`
}

// ValueCount is how many cases hold one value of a facet.
type ValueCount struct {
	Value string `json:"value"`
	Cases int    `json:"cases"`
}

// StatsOf computes c's Stats.
func StatsOf(c *Corpus) Stats {
	n := len(c.Cases)
	st := Stats{Corpus: c.Name, Cases: n, Counts: map[string][]ValueCount{}, AvailabilityGaps: []AvailabilityGap{}}
	if n == 0 {
		return st
	}
	facts, tests, evi := 0, 0, 0
	for _, cs := range c.Cases {
		facts += len(cs.Patient.Facts)
		tests += len(cs.Exam.Tests)
		evi += len(cs.Manager.Evidence)
		if len(cs.Manager.Management) > 0 {
			st.ManagementCases++
		}
		if cs.Manager.Referral != nil && cs.Manager.Referral.Needed {
			st.Referrals++
		}
		if n := len(cs.Provenance.Redactions); n > 0 {
			st.RedactedCases++
			st.Redactions += n
		}
	}
	st.FactsPerCase, st.TestsPerCase, st.EvidencePerCase = float64(facts)/float64(n), float64(tests)/float64(n), float64(evi)/float64(n)
	for name, key := range facetKeys {
		st.Counts[name] = countBy(c, key)
	}
	st.Openings = Openings(c)
	if gaps := TestAvailability(c); gaps != nil {
		st.AvailabilityGaps = gaps
	}
	return st
}

// facetKeys are the value of each of Stats.Counts' facets in a case.
var facetKeys = map[string]func(cs *clinic.Case) string{
	"splits": func(cs *clinic.Case) string { return cs.Meta.Split },
	"stages": func(cs *clinic.Case) string {
		if cs.Meta.Stage == 0 {
			return ""
		}
		s := fmt.Sprintf("s%02d", cs.Meta.Stage)
		if cs.Meta.Shifted {
			s += "*"
		}
		return s
	},
	"systems":       func(cs *clinic.Case) string { return cs.System },
	"conditions":    func(cs *clinic.Case) string { return cs.Condition },
	"personalities": func(cs *clinic.Case) string { return cs.Patient.Persona.Personality },
	"recall":        func(cs *clinic.Case) string { return cs.Patient.Persona.Recall },
	"sources":       func(cs *clinic.Case) string { return cs.Provenance.Source },
}

// countBy counts the cases of c by a value of theirs, most frequent first
// (ties in value order).
func countBy(c *Corpus, key func(cs *clinic.Case) string) []ValueCount {
	m := map[string]int{}
	for i := range c.Cases {
		m[key(&c.Cases[i])]++
	}
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	out := make([]ValueCount, len(keys))
	for i, k := range keys {
		out[i] = ValueCount{k, m[k]}
	}
	return out
}

// statFacets are Stats.Counts' facets in the order WriteStats prints them,
// each with how many values it lists before "... (k more)" (0: all).
var statFacets = []struct {
	name  string
	limit int
}{{"splits", 0}, {"stages", 0}, {"systems", 0}, {"conditions", 20}, {"personalities", 0}, {"recall", 0}, {"sources", 0}}

// maxGapsPrinted bounds the availability gaps WriteStats lists: a published
// corpus of case reports, every case its own condition, has thousands
// (clinevo's choice).
const maxGapsPrinted = 25

// WriteStats prints a summary of a corpus (StatsOf) for a terminal.
func WriteStats(w io.Writer, c *Corpus) {
	st := StatsOf(c)
	fmt.Fprintf(w, "corpus %s: %d cases\n", st.Corpus, st.Cases)
	if st.Cases == 0 {
		return
	}
	n := float64(st.Cases)
	fmt.Fprintf(w, "facts per case %.1f, test results per case %.1f, evidence key points per case %.1f\n",
		st.FactsPerCase, st.TestsPerCase, st.EvidencePerCase)
	fmt.Fprintf(w, "cases with management key points %d (%.0f%%), needing referral %d\n", st.ManagementCases, 100*float64(st.ManagementCases)/n, st.Referrals)
	fmt.Fprintf(w, "redacted by the importer's leak guard: %d cases, %d texts naming the diagnosis\n", st.RedactedCases, st.Redactions)
	for _, f := range statFacets {
		counts := st.Counts[f.name]
		var parts []string
		for i, vc := range counts {
			if f.limit > 0 && i == f.limit {
				parts = append(parts, fmt.Sprintf("... (%d more)", len(counts)-f.limit))
				break
			}
			parts = append(parts, fmt.Sprintf("%s %d", orDash(vc.Value), vc.Cases))
		}
		fmt.Fprintf(w, "%s (%d): %s\n", f.name, len(counts), strings.Join(parts, ", "))
	}
	o := st.Openings
	fmt.Fprintf(w, "openings: %d distinct (normalised) in %d cases, at least %d per condition\n", o.Distinct, o.Cases, o.MinPerCondition)
	fmt.Fprintf(w, "evidence key points vary between cases in %d of %d conditions\n", o.VaryingEvidence, o.Conditions)
	fmt.Fprintf(w, "tests whose availability depends on the condition: %d\n", len(st.AvailabilityGaps))
	for i, g := range st.AvailabilityGaps {
		if i == maxGapsPrinted {
			fmt.Fprintf(w, "  ... (%d more; --json lists them all)\n", len(st.AvailabilityGaps)-i)
			break
		}
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
	Test string `json:"test"`
	// Always lists the conditions where every case has a result, Never those
	// where no case has one, Sometimes the rest.
	Always    []string `json:"always"`
	Never     []string `json:"never"`
	Sometimes []string `json:"sometimes"`
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
	Cases    int `json:"cases"`
	Distinct int `json:"distinct"` // distinct normalised openings
	// MinPerCondition is the fewest distinct openings of any condition.
	MinPerCondition int `json:"min_per_condition"`
	// VaryingEvidence counts the conditions whose cases do not all carry the
	// same evidence key points; Conditions counts the conditions.
	VaryingEvidence int `json:"varying_evidence"`
	Conditions      int `json:"conditions"`
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

// Summary is what `corpus stats` says of a corpus: its stats and, against
// another corpus, the openings the two share. Its JSON is {"stats"}, with
// "overlap" against another corpus.
type Summary struct {
	Overlap *Overlap `json:"overlap,omitempty"`
	Stats   Stats    `json:"stats"`
	c, b    *Corpus
}

// Summarise summarises c, and its overlap with b unless b is nil.
func Summarise(c, b *Corpus) Summary {
	s := Summary{Stats: StatsOf(c), c: c, b: b}
	if b != nil {
		o := OpeningOverlap(c, b)
		s.Overlap = &o
	}
	return s
}

// Write prints the summary as tables: WriteStats, then WriteOverlap.
func (s Summary) Write(w io.Writer) error {
	WriteStats(w, s.c)
	if s.b != nil {
		WriteOverlap(w, s.c, s.b)
	}
	return nil
}

// Overlap is how many openings of one corpus another corpus also has.
type Overlap struct {
	Cases          int      `json:"cases"`           // cases of the first corpus
	SharedCases    int      `json:"shared_cases"`    // of which their normalised opening is an opening of the second
	SharedOpenings []string `json:"shared_openings"` // the distinct shared normalised openings, sorted
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
