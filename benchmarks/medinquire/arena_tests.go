package medinquire

import (
	"regexp"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/internal/pylit"
)

// DiagnosisArena's "Diagnostic Tests" is either a Python dict literal of
// named sections held in a string ({'Laboratory Tests': '- ...', 'Imaging
// Studies': {'CT': {'Title': ..., 'Description': ...}}}) or free text with
// headed sections ("- Laboratory Tests: ...- Histopathology: ..."). Both
// read to the same items, a dict's keys at their nesting depth, which
// corpus.GroupTests turns into tests by name.

// arenaTests reads the field into tests, in the order they are written.
func arenaTests(field string) ([]clinic.TestValue, error) {
	field = strings.TrimSpace(field)
	if field == "" || noTests.MatchString(field) {
		return nil, nil
	}
	var items []corpus.TestItem
	if strings.HasPrefix(field, "{") {
		v, err := pylit.Parse(field)
		if err != nil {
			return nil, corpus.FieldError{Field: "Diagnostic Tests", Msg: err.Error()}
		}
		items = literalItems(v, 0, "")
	} else {
		items = corpus.TextTestItems(field)
	}
	return corpus.GroupTests(items), nil
}

// noTests is a field that says there are none.
var noTests = regexp.MustCompile(`(?i)^no (specific |further |additional )?(diagnostic )?(tests?|investigations?|studies)\b[^.]*\b(reported|performed|available|documented|mentioned|described)`)

// literalItems lists a parsed literal's entries: a dict key is a label at
// its depth, a string value its text (or, where it holds a list, the list's
// items one level deeper).
func literalItems(v pylit.Value, depth int, label string) []corpus.TestItem {
	switch v.Kind {
	case pylit.Dict:
		var out []corpus.TestItem
		if label != "" {
			out = append(out, corpus.TestItem{Depth: depth - 1, Label: label})
		}
		for i, k := range v.Keys {
			out = append(out, literalItems(v.Items[i], depth+1, scalarText(k))...)
		}
		return out
	case pylit.List, pylit.Tuple, pylit.Set:
		out := []corpus.TestItem{{Depth: depth - 1, Label: label}}
		for _, it := range v.Items {
			out = append(out, literalItems(it, depth+1, "")...)
		}
		return out
	}
	text := scalarText(v)
	sub := corpus.SplitList(text)
	if len(sub) <= 1 {
		return []corpus.TestItem{{Depth: depth - 1, Label: label, Text: strings.TrimSpace(text)}}
	}
	out := []corpus.TestItem{{Depth: depth - 1, Label: label}}
	for _, it := range sub {
		out = append(out, corpus.TestItem{Depth: depth, Label: it.Label, Text: it.Text})
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
