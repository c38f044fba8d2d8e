package sdbench

import (
	"regexp"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/textmatch"
)

// Narrative is a case record given as prose, split as the encounter serves
// it (Nori et al. 2025, §2: history and examination findings are told when
// asked, test results when the test is ordered): what the patient tells,
// what an examination finds, and what tests show, by test. Investigation
// sentences that name no test the catalog or the price table knows stay in
// the full record only, where a test naming them finds them.
type Narrative struct {
	History        []string
	Examination    []clinic.Finding
	Investigations []clinic.TestValue
}

// The cues are clinevo's: a heading names its section; otherwise an
// examination sentence speaks of examining or of signs, an investigation
// sentence of a test or of what one showed, and the rest is history.
var (
	headingRE     = regexp.MustCompile(`^\s*([A-Za-z ]{3,40}):\s*(.*)$`)
	examHeads     = []string{"examination", "physical examination", "on examination", "exam", "physical exam", "signs"}
	testHeads     = []string{"investigations", "laboratory", "laboratory results", "labs", "imaging", "results", "tests", "pathology", "studies"}
	historyHeads  = []string{"history", "presentation", "history of present illness", "past history", "social history", "family history", "medications", "patient"}
	examCueRE     = regexp.MustCompile(`\b(on examination|examination (showed|revealed|found|was|disclosed)|exam (showed|revealed|was)|examined|palpable|palpation|palpated|auscultation|was heard|were heard|murmur|tenderness|tender|temperature (was|of)|blood pressure|pulse (was|of)|heart rate|respiratory rate|oxygen saturation|afebrile|appeared (unwell|well|pale)|jaundiced)\b`)
	investigateRE = regexp.MustCompile(`\b(showed|shows|revealed|demonstrated|grew|positive for|negative for|levels?|count|counts|mg|mmol|biopsy|specimen|scan|radiograph|x ray|ct|mri|ultrasound|ultrasonography|echocardiogram|echocardiography|culture|cultures|histology|histologic|histological|immunohistochemical|immunohistochemistry|cytology|serology|serologic|titer|titre|smear|stain|staining|assay|electrophoresis|sequencing)\b`)
)

// SplitNarrative splits a record's text by its section headings where it
// has them, else sentence by sentence by the cues.
func SplitNarrative(text string) Narrative {
	var n Narrative
	named := map[string]int{} // test name -> index in Investigations
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		if m := headingRE.FindStringSubmatch(line); m != nil {
			if s := sectionOf(m[1]); s != "" {
				section, line = s, m[2]
			}
		}
		for _, s := range recordSentences(line) {
			kind := section
			if kind == "" {
				kind = sentenceKind(s)
			}
			n.add(kind, s, named)
		}
	}
	return n
}

// sectionOf is the section a heading opens: "history", "exam", "tests", or
// "" for none.
func sectionOf(heading string) string {
	h := textmatch.Normalize(heading)
	switch {
	case slices.Contains(examHeads, h):
		return "exam"
	case slices.Contains(testHeads, h):
		return "tests"
	case slices.Contains(historyHeads, h):
		return "history"
	}
	return ""
}

// sentenceKind reads one sentence by the cues.
func sentenceKind(s string) string {
	n := textmatch.Normalize(s)
	switch {
	case examCueRE.MatchString(n):
		return "exam"
	case investigateRE.MatchString(n) || len(catalog.Default().Mentions(s)) > 0:
		return "tests"
	}
	return "history"
}

func (n *Narrative) add(kind, s string, named map[string]int) {
	switch kind {
	case "exam":
		n.Examination = append(n.Examination, clinic.Finding{System: corpus.FindingSystem(s), Text: s})
	case "tests":
		for _, name := range testNames(s) {
			if i, ok := named[name]; ok {
				n.Investigations[i].Result += " " + s
				continue
			}
			named[name] = len(n.Investigations)
			n.Investigations = append(n.Investigations, clinic.TestValue{Name: name, Result: s})
		}
	default:
		n.History = append(n.History, s)
	}
}

// testNames are the tests a sentence names: the catalog's billable tests,
// else the price table's rows.
func testNames(s string) []string {
	if names := catalog.Default().Mentions(s); len(names) > 0 {
		return names
	}
	return Prices.Price(s).Rows
}

// leakGuard tells a sentence that names the diagnosis: its whole name
// (corpus.LeakGuard, the published-cases importers' guard), or, stricter
// than they are, a word of it specific enough to give it away (clinevo's
// rule: a word of five letters or more that is not a body region nor a
// generic medical word), since SDBench's built-in gatekeeper answers from
// single sentences.
type leakGuard struct {
	names corpus.LeakGuard
	words []string
}

// genericWords are words of a diagnosis that name no disease in themselves.
var genericWords = []string{"disease", "syndrome", "acute", "chronic", "primary", "secondary", "infection", "disorder", "acquired",
	"community", "benign", "malignant", "tumor", "tumour", "right", "left", "bilateral", "severe", "related", "associated", "induced",
	"deficiency", "failure", "lesion", "without", "other", "unspecified", "early", "late", "stage", "grade", "type", "viral", "bacterial"}

func newLeakGuard(names ...string) leakGuard {
	g := leakGuard{names: corpus.NewLeakGuard(names...)}
	for _, name := range names {
		for _, w := range strings.Fields(textmatch.Normalize(name)) {
			if len(w) >= 5 && !slices.Contains(genericWords, w) && len(regionsOf(w)) == 0 && !slices.Contains(g.words, w) {
				g.words = append(g.words, w)
			}
		}
	}
	return g
}

// leaks reports whether text names the diagnosis.
func (g leakGuard) leaks(text string) bool {
	if g.names.Names(text) != "" {
		return true
	}
	n := " " + textmatch.Normalize(text) + " "
	return slices.ContainsFunc(g.words, func(w string) bool { return strings.Contains(n, " "+w+" ") })
}
