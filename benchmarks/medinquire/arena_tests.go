package medinquire

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/internal/pylit"
	"github.com/clinevo/clinevo/textmatch"
)

// DiagnosisArena's "Diagnostic Tests" is either a Python dict literal of
// named sections held in a string ({'Laboratory Tests': '- ...', 'Imaging
// Studies': {'CT': {'Title': ..., 'Description': ...}}}) or free text with
// headed sections ("- Laboratory Tests: ...- Histopathology: ..."), often
// with its line breaks lost. Both read to the same items (a label, a text,
// and for a dict the nesting depth), which group into sections (laboratory,
// imaging, pathology, genetic testing, or a named test) holding named tests.
// Each section is a test whose result is the whole section, named after its
// kind ("laboratory tests", "imaging studies", "pathology") with the usual
// words for it as aliases; each named test in it ("Brain MRI", "Creatine
// kinase") is a test of its own, under the built-in catalog's name where an
// alias matches (corpus.TestName). A doctor who orders "labs" gets the whole
// laboratory section at the price of one unnamed test, as the paper's cost
// table would charge it (EvoClinician appendix: a name the table lacks pays
// the default).

// testItem is one entry of the field.
type testItem struct {
	depth int // a dict's nesting depth (0: a top-level key), -1 in free text
	label string
	text  string
}

// arenaTests reads the field into tests, in the order they are written.
func arenaTests(field string) ([]clinic.TestValue, error) {
	field = strings.TrimSpace(field)
	if field == "" || noTests.MatchString(field) {
		return nil, nil
	}
	var items []testItem
	if strings.HasPrefix(field, "{") {
		v, err := pylit.Parse(field)
		if err != nil {
			return nil, corpus.FieldError{Field: "Diagnostic Tests", Msg: err.Error()}
		}
		items = literalItems(v, 0, "")
	} else {
		for _, it := range corpus.SplitList(field) {
			items = append(items, testItem{depth: -1, label: it.Label, text: it.Text})
		}
	}
	return groupTests(items).tests(), nil
}

// noTests is a field that says there are none.
var noTests = regexp.MustCompile(`(?i)^no (specific |further |additional )?(diagnostic )?(tests?|investigations?|studies)\b[^.]*\b(reported|performed|available|documented|mentioned|described)`)

// literalItems lists a parsed literal's entries: a dict key is a label at
// its depth, a string value its text (or, where it holds a list, the list's
// items one level deeper).
func literalItems(v pylit.Value, depth int, label string) []testItem {
	switch v.Kind {
	case pylit.Dict:
		var out []testItem
		if label != "" {
			out = append(out, testItem{depth: depth - 1, label: label})
		}
		for i, k := range v.Keys {
			out = append(out, literalItems(v.Items[i], depth+1, scalarText(k))...)
		}
		return out
	case pylit.List, pylit.Tuple, pylit.Set:
		out := []testItem{{depth: depth - 1, label: label}}
		for _, it := range v.Items {
			out = append(out, literalItems(it, depth+1, "")...)
		}
		return out
	}
	text := scalarText(v)
	sub := corpus.SplitList(text)
	if len(sub) <= 1 {
		return []testItem{{depth: depth - 1, label: label, text: strings.TrimSpace(text)}}
	}
	out := []testItem{{depth: depth - 1, label: label}}
	for _, it := range sub {
		out = append(out, testItem{depth: depth, label: it.Label, text: it.Text})
	}
	return out
}

// scalarText is a string's text, or a number's, boolean's or None's source.
func scalarText(v pylit.Value) string {
	switch v.Kind {
	case pylit.Bool:
		return map[bool]string{true: "True", false: "False"}[v.Bool]
	case pylit.None:
		return ""
	}
	return v.Str
}

// testSection is one section with its named tests.
type testSection struct {
	label string   // the heading as written ("" for unheaded text)
	texts []string // entries that belong to the section itself
	subs  []*namedTest
}

type namedTest struct {
	label string
	texts []string
}

type testGroups struct{ sections []*testSection }

// groupTests places each item: a heading opens a section; a caption
// (Title, Description, Figure ...) belongs to the test before it; another
// label is a named test of the current section; unlabelled text belongs to
// the test or section before it.
func groupTests(items []testItem) *testGroups {
	g := &testGroups{}
	for _, it := range items {
		label := strings.TrimSpace(it.label)
		switch {
		case label != "" && (it.depth == 0 || it.depth < 0 && isHeading(label)):
			g.sections = append(g.sections, &testSection{label: label})
			g.add(it.text)
		case label != "" && isCaption(label):
			g.add(it.text)
		case label != "" && it.depth > 1:
			g.add(label + ": " + it.text)
		case label != "":
			g.named(label, it.text)
		default:
			g.add(it.text)
		}
	}
	return g
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

// tests turns the sections into tests: each section, then its named tests.
// Two tests of one name merge, their results joined.
func (g *testGroups) tests() []clinic.TestValue {
	var out []clinic.TestValue
	add := func(name string, aliases []string, result string) {
		if name == "" || strings.TrimSpace(result) == "" {
			return
		}
		for i := range out {
			if out[i].Name == name {
				out[i].Result += "; " + result
				out[i].Abnormal = out[i].Abnormal || corpus.AbnormalLeaf(name, result)
				return
			}
		}
		aliases = slices.DeleteFunc(aliases, func(a string) bool { return catalogKey(a) == catalogKey(name) })
		out = append(out, clinic.TestValue{Name: name, Aliases: aliases, Result: result, Abnormal: corpus.AbnormalLeaf(name, result)})
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
		if t := strings.Join(n.texts, " "); t != "" {
			parts = append(parts, n.label+": "+t)
		}
	}
	return strings.Join(parts, "; ")
}

func catalogKey(s string) string { return textmatch.Normalize(s) }

// testName is a named test's catalog name (corpus.TestName), or its own
// where that would be an examination: a physical examination item reads
// the findings, never a test result ("Heart rate: 252 bpm" is a result).
func testName(label string) (string, []string) {
	label = trimResultWords(label)
	name, aliases := corpus.TestName(label)
	if it, m := catalog.Default().Lookup(name); m != catalog.MatchNone && it.Free() {
		return textmatch.Normalize(label), aliases
	}
	return name, aliases
}

// String is a section as it reads, for error messages and tests.
func (s *testSection) String() string { return fmt.Sprintf("%s: %s", s.label, s.result()) }
