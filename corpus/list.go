package corpus

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ListItem is one entry of a list, or one run of prose, in a published
// free-text field: Label is the short heading before a colon ("Brain MRI"
// of "- Brain MRI: normal"), Text what follows (all of it where there is no
// label).
type ListItem struct {
	Label, Text string
}

// String is the item as written: "Label: Text".
func (it ListItem) String() string {
	switch {
	case it.Label == "":
		return it.Text
	case it.Text == "":
		return it.Label + ":"
	}
	return it.Label + ": " + it.Text
}

// SplitList splits free text into items at line breaks, at runs of three or
// more spaces (line breaks that lost their newline and kept their indent),
// and at list markers that open an entry ("- ", "* ", "• " before a capital,
// digit or bracket; "1. ", "2. ", ... in sequence), even where the line break
// before a marker was lost ("... negative.- Histopathology: ..."). Published
// case sets (DiagnosisArena) hold lists flattened in all these ways.
func SplitList(text string) []ListItem {
	var out []ListItem
	for _, raw := range splitEntries(text) {
		if s := strings.TrimSpace(raw); s != "" {
			out = append(out, labelled(s))
		}
	}
	return out
}

// splitEntries cuts text at the boundaries SplitList describes and drops the markers.
func splitEntries(text string) []string {
	var out []string
	start, next := 0, 1 // next: the number a numbered marker must carry
	for i := 0; i < len(text); {
		end, skip := boundary(text, i, &next)
		if skip == 0 {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		out = append(out, text[start:end])
		i = end + skip
		start = i
	}
	return append(out, text[start:])
}

// boundary reports whether an entry ends at i: where it ends and how many
// bytes (break and marker) to skip; skip 0 is no boundary.
func boundary(text string, i int, next *int) (int, int) {
	c := text[i]
	switch {
	case c == '\n' || c == '\r':
		return i, 1
	case c == ' ' || c == '\t':
		n := 0
		for i+n < len(text) && (text[i+n] == ' ' || text[i+n] == '\t') {
			n++
		}
		if n >= 3 {
			return i, n
		}
	case c == '-' || c == '*' || strings.HasPrefix(text[i:], "•"):
		width := 1
		if c != '-' && c != '*' {
			width = len("•")
		}
		if n := spaces(text, i+width); n > 0 && opensEntry(text, i+width+n) {
			return i, width + n
		}
	case '0' <= c && c <= '9' && (i == 0 || !isDigitOrDot(text[i-1])):
		j := i
		for j < len(text) && '0' <= text[j] && text[j] <= '9' {
			j++
		}
		k, _ := strconv.Atoi(text[i:j])
		if j < len(text) && text[j] == '.' && (k == *next || k == 1) {
			if n := spaces(text, j+1); n > 0 && opensEntry(text, j+1+n) {
				*next = k + 1
				return i, j + 1 + n - i
			}
		}
	}
	return i, 0
}

func isDigitOrDot(c byte) bool { return c == '.' || ('0' <= c && c <= '9') }

func spaces(text string, i int) int {
	n := 0
	for i+n < len(text) && text[i+n] == ' ' {
		n++
	}
	return n
}

// opensEntry reports whether an entry can start at i: a capital, a digit or a bracket.
func opensEntry(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '('
}

// maxLabelWords bounds a label: a longer run before a colon is prose
// ("The patient reported the following: ..."); clinevo's choice.
const maxLabelWords = 8

// labelled splits an entry into its label and text.
func labelled(s string) ListItem {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i+1 < len(s) && '0' <= s[i+1] && s[i+1] <= '9' && '0' <= s[i-1] && s[i-1] <= '9' {
		return ListItem{Text: s} // no colon, or a time or ratio ("10:30", "1:640")
	}
	label := strings.TrimSpace(s[:i])
	r, _ := utf8.DecodeRuneInString(label)
	if len(strings.Fields(label)) > maxLabelWords || strings.Contains(label, ". ") || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return ListItem{Text: s}
	}
	return ListItem{Label: label, Text: strings.TrimSpace(s[i+1:])}
}
