package corpus

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/clinevo/clinevo/textmatch"
)

// Masked replaces a guarded name that an imported text cannot do without
// (the opening complaint).
const Masked = "[redacted]"

// LeakGuard finds the diagnosis, or a synonym of it, in a text that a role
// other than the judge will see: an importer drops or masks what it finds
// (docs/corpora.md says which).
type LeakGuard struct {
	terms []leakTerm
}

type leakTerm struct {
	name  string
	words []string
}

// NewLeakGuard guards the names: the diagnosis and its synonyms. Each is
// matched as whole words, case and punctuation aside ("end-stage renal
// disease" is "End stage renal disease"); a name with fewer than two
// letters or digits is not guarded.
func NewLeakGuard(names ...string) LeakGuard {
	var g LeakGuard
	seen := map[string]bool{}
	for _, n := range names {
		key := textmatch.Normalize(n)
		if len(key) < 2 || seen[key] {
			continue
		}
		seen[key] = true
		g.terms = append(g.terms, leakTerm{name: n, words: strings.Fields(key)})
	}
	return g
}

// Names returns the first guarded name that text holds, or "".
func (g LeakGuard) Names(text string) string {
	words := wordSpans(text)
	for _, t := range g.terms {
		if _, ok := t.find(words); ok {
			return t.name
		}
	}
	return ""
}

// Mask replaces every guarded name in text with Masked.
func (g LeakGuard) Mask(text string) string {
	for _, t := range g.terms {
		for {
			words := wordSpans(text)
			i, ok := t.find(words)
			if !ok {
				break
			}
			text = text[:words[i].start] + Masked + text[words[i+len(t.words)-1].end:]
		}
	}
	return text
}

// find is the index of the first word of the term's first occurrence in words.
func (t leakTerm) find(words []wordSpan) (int, bool) {
	for i := 0; i+len(t.words) <= len(words); i++ {
		match := true
		for j, w := range t.words {
			if words[i+j].word != w {
				match = false
				break
			}
		}
		if match {
			return i, true
		}
	}
	return 0, false
}

// wordSpan is one word of a text, normalised as textmatch.Normalize
// normalises it, with its byte span in the text.
type wordSpan struct {
	word       string
	start, end int
}

// wordSpans splits text into its words: runs of letters and digits
// (apostrophes inside a word dropped, as Normalize drops them).
func wordSpans(text string) []wordSpan {
	var out []wordSpan
	start := -1
	var b strings.Builder
	flush := func(end int) {
		if start >= 0 {
			out = append(out, wordSpan{word: b.String(), start: start, end: end})
			b.Reset()
			start = -1
		}
	}
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
			b.WriteRune(unicode.ToLower(r))
		case (r == '\'' || r == '’' || r == '‘') && start >= 0:
			// inside a word: dropped, the word goes on
		default:
			flush(i)
		}
	}
	flush(len(text))
	return out
}

// DiagnosisNames reads a published diagnosis label: the name without a
// bracketed abbreviation of it, the abbreviations as acceptable names
// (those of the label, and those the case's texts define: "end-stage renal
// disease (ESRD)"), and the terms a leak guard must look for (the name with
// every bracketed detail removed, and the abbreviations). A bracket that
// abbreviates nothing ("induced by immunotherapy (nivolumab)") stays in the
// name: it is part of the diagnosis.
func DiagnosisNames(label string, texts ...string) (name string, acceptable, guard []string) {
	name = strings.TrimSpace(label)
	bare := strings.TrimSpace(strings.Join(strings.Fields(bracketed.ReplaceAllString(name, " ")), " "))
	for _, m := range bracketed.FindAllStringSubmatch(name, -1) {
		if abbr := strings.TrimSpace(m[1]); Abbreviates(abbr, bare) {
			acceptable = append(acceptable, abbr)
			name = strings.Replace(name, m[0], " ", 1)
		}
	}
	name = strings.Join(strings.Fields(name), " ")
	defined := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(bare) + `\s*\(([^)]{2,12})\)`)
	for _, t := range texts {
		for _, m := range defined.FindAllStringSubmatch(t, -1) {
			if abbr := strings.TrimSpace(m[1]); Abbreviates(abbr, bare) && !containsFold(acceptable, abbr) {
				acceptable = append(acceptable, abbr)
			}
		}
	}
	return name, acceptable, append([]string{bare}, acceptable...)
}

func containsFold(xs []string, x string) bool {
	for _, v := range xs {
		if strings.EqualFold(v, x) {
			return true
		}
	}
	return false
}

// abbreviationSkips are the small words an abbreviation leaves out.
var abbreviationSkips = map[string]bool{"of": true, "and": true, "the": true, "with": true, "in": true, "to": true, "a": true, "an": true, "for": true, "on": true}

// Abbreviates reports whether abbr is the initials of name's words
// ("ESRD" of "End-stage renal disease", "CMH" of "cutaneous meningeal
// heterotopia"): a bracket that abbreviates only part of a name ("DMEK" of
// "epithelial downgrowth after Descemet membrane endothelial keratoplasty")
// does not.
func Abbreviates(abbr, name string) bool {
	var letters []rune
	for _, r := range abbr {
		if unicode.IsLetter(r) {
			letters = append(letters, unicode.ToLower(r))
		}
	}
	var initials []rune
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !abbreviationSkips[w] {
			initials = append(initials, []rune(w)[0])
		}
	}
	return len(letters) >= 2 && string(letters) == string(initials)
}
