package corpus

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteStats prints a summary of a corpus.
func WriteStats(w io.Writer, c *Corpus) {
	n := len(c.Cases)
	by := func(key func(i int) string) map[string]int {
		m := map[string]int{}
		for i := range c.Cases {
			m[key(i)]++
		}
		return m
	}
	facts, tests, evi, mgmt, refer := 0, 0, 0, 0, 0
	for _, cs := range c.Cases {
		facts += len(cs.Patient.Facts)
		tests += len(cs.Exam.Tests)
		evi += len(cs.Manager.Evidence)
		if len(cs.Manager.Management) > 0 {
			mgmt++
		}
		if cs.Manager.Referral != nil && cs.Manager.Referral.Needed {
			refer++
		}
	}
	fmt.Fprintf(w, "corpus %s: %d cases\n", c.Name, n)
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "facts per case %.1f, test results per case %.1f, evidence key points per case %.1f\n",
		float64(facts)/float64(n), float64(tests)/float64(n), float64(evi)/float64(n))
	fmt.Fprintf(w, "cases with management key points %d (%.0f%%), needing referral %d\n", mgmt, 100*float64(mgmt)/float64(n), refer)
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
}
