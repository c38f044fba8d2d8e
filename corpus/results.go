package corpus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Published case sets hold their test results as free text with headed
// sections ("- Laboratory Tests: ...- Histopathology: ...") or as nested
// named sections (DiagnosisArena's dict literals, AgentClinic's NEJM
// results), often with the line breaks lost. Both read to TestItems, which
// GroupTests groups into sections (laboratory, imaging, pathology, genetic
// testing, images, or a named test) holding named tests. Each section is a
// test whose result is the whole section, named after its kind ("laboratory
// tests", "imaging studies", "pathology") with the usual words for it as
// aliases; each named test in it ("Brain MRI", "Creatine kinase") is a test
// of its own, under the built-in catalog's name where an alias matches
// (TestName). A doctor who orders "labs" gets the whole laboratory section
// at the price of one unnamed test, as Med-Inquire's cost table would charge
// it (EvoClinician appendix: a name the table lacks pays the default).

// TestItem is one entry of a test-results field.
type TestItem struct {
	Depth int // a nested source's depth (0: a top-level section), -1 in free text
	Label string
	Text  string
}

// TextTestItems are the entries of free text (SplitList), at depth -1.
func TextTestItems(text string) []TestItem {
	var out []TestItem
	for _, it := range SplitList(text) {
		out = append(out, TestItem{Depth: -1, Label: it.Label, Text: it.Text})
	}
	return out
}

// GroupTests turns a field's items into tests, in the order they are
// written: each section, then its named tests; two tests of one name merge,
// their results joined.
func GroupTests(items []TestItem) []clinic.TestValue { return groupTests(items).tests() }

// testSection is one section with its named tests.
type testSection struct {
	label string   // the heading as written ("" for unheaded text)
	texts []string // entries that belong to the section itself
	subs  []*namedTest
}

type namedTest struct {
	label string
	texts []string
	// slot is a test a "Test" entry named: its name is part of the
	// section's result even where its outcome is written as tests of their
	// own ("Test: MMSE", "Initial Score: 24/30").
	slot bool
}

type testGroups struct{ sections []*testSection }

// groupTests places each item: a heading opens a section; a caption
// (Title, Description, Figure ...) or a test's outcome ("Test Result")
// belongs to the test before it; a "Test" entry opens the test its text
// names; another label is a named test of the current section; unlabelled
// text belongs to the test or section before it.
func groupTests(items []TestItem) *testGroups {
	g := &testGroups{}
	for _, it := range items {
		label := strings.TrimSpace(it.Label)
		switch {
		case label != "" && testOutcome(label):
			g.add(label + ": " + it.Text)
		case label != "" && testSlot(label):
			g.slot(it)
		case label != "" && (it.Depth == 0 || it.Depth < 0 && isHeading(label)):
			g.sections = append(g.sections, &testSection{label: label})
			g.add(it.Text)
		case label != "" && isCaption(label):
			g.add(it.Text)
		case label != "" && it.Depth > 1:
			g.add(label + ": " + it.Text)
		case label != "":
			g.named(label, it.Text)
		case strings.HasSuffix(strings.TrimSpace(it.Text), ":"):
			// a lead-in ("Laboratory testing results are as follows:") says nothing
		default:
			g.add(it.Text)
		}
	}
	return g
}

// slot opens the test a "Test" entry names: a section of its own at the
// top level or in free text, where it follows whatever section came before
// ("- Laboratory Tests: ... - Test: Computed tomography ..."), else a named
// test of the current section. An entry with no text says nothing.
func (g *testGroups) slot(it TestItem) {
	name := strings.TrimSpace(it.Text)
	switch {
	case name == "":
	case it.Depth <= 0:
		g.sections = append(g.sections, &testSection{label: name})
	default:
		s := g.current()
		s.subs = append(s.subs, &namedTest{label: name, slot: true})
	}
}

// add puts text in the last named test, or the last section.
func (g *testGroups) add(text string) {
	if text = strings.TrimSpace(text); text == "" {
		return
	}
	s := g.current()
	if n := len(s.subs); n > 0 {
		s.subs[n-1].texts = append(s.subs[n-1].texts, text)
		return
	}
	s.texts = append(s.texts, text)
}

// named opens a named test in the current section; a label that only
// qualifies a result ("Strongly positive", "Result") is text instead.
func (g *testGroups) named(label, text string) {
	if qualifierLabel(label) {
		g.add(label + ": " + text)
		return
	}
	if base, ok := captionOf(label); ok {
		label = base // "Brain MRI Title": the Brain MRI, then its caption
	}
	s := g.current()
	s.subs = append(s.subs, &namedTest{label: label})
	g.add(text)
}

func (g *testGroups) current() *testSection {
	if len(g.sections) == 0 {
		g.sections = append(g.sections, &testSection{})
	}
	return g.sections[len(g.sections)-1]
}

// tests turns the sections into tests.
func (g *testGroups) tests() []clinic.TestValue {
	var out []clinic.TestValue
	add := func(name string, aliases []string, result string) {
		if name == "" || strings.TrimSpace(result) == "" {
			return
		}
		for i := range out {
			if out[i].Name == name {
				out[i].Result += "; " + result
				out[i].Abnormal = out[i].Abnormal || AbnormalLeaf(name, result)
				return
			}
		}
		seen := map[string]bool{catalogKey(name): true}
		aliases = slices.DeleteFunc(aliases, func(a string) bool {
			k := catalogKey(a)
			dup := seen[k]
			seen[k] = true
			return dup
		})
		out = append(out, clinic.TestValue{Name: name, Aliases: aliases, Result: result, Abnormal: AbnormalLeaf(name, result)})
	}
	for _, s := range g.sections {
		name, aliases := sectionName(s)
		add(name, aliases, s.result())
		for _, n := range s.subs {
			sub, subAliases := testName(n.label)
			add(sub, append(subAliases, n.label), strings.Join(n.texts, " "))
		}
	}
	return out
}

// result is the whole section: its own text and each named test's.
func (s *testSection) result() string {
	parts := slices.Clone(s.texts)
	for _, n := range s.subs {
		switch t := strings.Join(n.texts, " "); {
		case t != "":
			parts = append(parts, n.label+": "+t)
		case n.slot:
			parts = append(parts, n.label)
		}
	}
	return strings.Join(parts, "; ")
}

func catalogKey(s string) string { return textmatch.Normalize(s) }

// testName is a named test's catalog name (TestName), or its own
// where that would be an examination: a physical examination item reads
// the findings, never a test result ("Heart rate: 252 bpm" is a result).
func testName(label string) (string, []string) {
	label = trimResultWords(label)
	name, aliases := TestName(label)
	if it, m := catalog.Default().Lookup(name); m != catalog.MatchNone && it.Free() {
		return textmatch.Normalize(label), aliases
	}
	return name, aliases
}

// String is a section as it reads, for error messages and tests.
func (s *testSection) String() string { return fmt.Sprintf("%s: %s", s.label, s.result()) }

// CatalogNames is the test list of a case imported with its own tests: the
// built-in catalog's names and the case's (each under the built-in name where
// an alias matches), sorted. The episode serves a test only when it is on the
// list (Episode's allow set); a profile that shows the list shows the
// built-in tests beside the case's, never the case's alone.
func CatalogNames(tests []clinic.TestValue) []string {
	items := make([]catalog.Item, len(tests))
	for i, t := range tests {
		items[i] = catalog.Item{Name: t.Name, Aliases: t.Aliases, Category: catalog.Infer(t.Name)}
	}
	return catalog.Default().Extend(items).Names()
}
