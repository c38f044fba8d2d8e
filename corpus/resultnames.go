package corpus

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clinevo/clinevo/textmatch"
)

// The words that tell a section heading, a caption and a result's qualifier
// from a test's name in DiagnosisArena's diagnostic tests: clinevo's lists,
// read off the 915 records.

// testKind is a section's kind and what a doctor calls it.
type testKind struct {
	name    string   // the section's test name
	aliases []string // the usual words for it
	stems   []string // word stems that mark a heading of this kind
}

// testKinds in the order a heading is tried against them: "Biopsy &
// Histopathology" is pathology, "Images" figures.
var testKinds = []testKind{
	{"images", []string{"clinical images", "figures", "photographs", "clinical photographs"}, []string{"image", "figure", "photograph", "photo"}},
	{"pathology", []string{"biopsy", "histopathology", "histology", "histopathological examination", "pathological examination", "tissue biopsy"},
		[]string{"biops", "histo", "patholog", "cytolog", "immunohisto", "microscop", "autops", "stain"}},
	{"genetic testing", []string{"genetic tests", "molecular testing", "gene testing", "genetic analysis", "molecular tests"},
		[]string{"genetic", "molecular", "genomic", "sequenc", "cytogenetic", "karyotyp", "mutation", "gene"}},
	{"imaging studies", []string{"imaging", "radiology", "imaging tests", "scans"},
		[]string{"imaging", "radiolog", "ct", "mri", "mra", "ultrasound", "ultrasonograph", "sonograph", "xray", "x", "radiograph", "scan", "tomograph", "echocardiogra", "angiogra", "pet", "oct", "fundus", "dermoscop", "elastograph", "mammogra", "scintigra"}},
	{"laboratory tests", []string{"labs", "laboratory", "lab tests", "blood tests", "bloods", "blood work", "laboratory studies", "laboratory investigations"},
		[]string{"laborator", "lab", "blood", "serum", "serolog", "culture", "microbio", "immunolog", "biochem", "hematolog", "haematolog", "urine", "urinalysis", "urinary", "csf", "chemistry", "cerebrospinal", "pcr", "antibod", "metabolic"}},
}

// headingWords are the words a section heading is made of, beside its kind's stems.
var headingWords = wordSet(`test tests testing study studies result results finding findings investigation investigations
workup work up evaluation evaluations analysis analyses diagnostic diagnostics procedure procedures examination examinations
exam other additional further initial clinical relevant key special supplementary and of the info information data report
reports panel titles descriptions included`)

// headingNouns name a section without naming a kind ("Other Tests").
var headingNouns = wordSet(`test tests testing studies investigations workup evaluation evaluations analyses procedures
examinations exams`)

// captionWords name a caption: text that belongs to the test before it.
var captionWords = wordSet(`title titles description descriptions image images figure figures fig caption legend note notes
info included and additional`)

// qualifierWords qualify a result rather than name a test ("Strongly positive: vimentin",
// "Others: 3%" closing a cell count).
var qualifierWords = wordSet(`strongly focally weakly diffusely partially positive negative result results finding findings
impression interpretation conclusion comment comments summary normal abnormal elevated decreased increased low high note notes
key main significant other others notable pertinent value values additional further initial follow up repeat subsequent later`)

// slotWords follow "Test" in a label that says which test was done ("Test
// Type: MRI", "Test Name: ..."), whose text is the test's name.
var slotWords = wordSet(`type name performed`)

// testSlot reports whether a label only announces the test its text names
// ("Test: Punch biopsy of the skin", "Test Type: MRI (2013)").
func testSlot(label string) bool {
	ws := words(label)
	return len(ws) > 0 && ws[0] == "test" && allIn(ws[1:], slotWords)
}

// testOutcome reports whether a label only announces the outcome of the
// test before it ("Test Result: a KRT6A variant", "Test Findings").
func testOutcome(label string) bool {
	ws := words(label)
	return len(ws) > 1 && (ws[0] == "test" || ws[0] == "tests") && allIn(ws[1:], resultWords)
}

func allIn(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if !set[w] {
			return false
		}
	}
	return true
}

// resultWords end a test's label without naming it ("MRI findings").
var resultWords = wordSet(`findings finding results result report reports`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func words(label string) []string { return strings.Fields(textmatch.Normalize(label)) }

// kindOf is the kind whose stems one of the label's words starts with (a
// stem of four letters or fewer is a whole word, or its plural: "gene" is
// not "general").
func kindOf(label string) (testKind, bool) {
	ws := words(label)
	for _, k := range testKinds {
		for _, w := range ws {
			for _, st := range k.stems {
				if strings.HasPrefix(w, st) && (len(st) > 4 || w == st || w == st+"s") {
					return k, true
				}
			}
		}
	}
	return testKind{}, false
}

// isHeading reports whether a label heads a section: every word is a
// heading word or a kind's stem ("Laboratory Tests", "Imaging Studies",
// "Histopathology", "Other Tests").
func isHeading(label string) bool {
	names := false
	for _, w := range words(label) {
		_, kind := kindOf(w)
		if !kind && !headingWords[w] {
			return false
		}
		names = names || kind || headingNouns[w]
	}
	return names
}

// isCaption reports whether a label names a caption ("Image Description", "Figure 2").
func isCaption(label string) bool {
	ws := words(label)
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !captionWords[w] && !isPanelRef(w) {
			return false
		}
	}
	return true
}

// captionOf splits "Brain MRI Title" into the test it captions.
func captionOf(label string) (string, bool) {
	ws := strings.Fields(label)
	n := len(ws)
	for n > 1 && captionWords[strings.ToLower(ws[n-1])] {
		n--
	}
	return strings.Join(ws[:n], " "), n < len(ws)
}

// qualifierLabel reports whether a label qualifies a result: it starts in
// lower case (a clause, not a heading) or is made of qualifier words.
func qualifierLabel(label string) bool {
	r, _ := utf8.DecodeRuneInString(label)
	if unicode.IsLower(r) {
		return true
	}
	for _, w := range words(label) {
		if !qualifierWords[w] {
			return false
		}
	}
	return true
}

// trimResultWords drops the words that end a label without naming the test.
func trimResultWords(label string) string {
	ws := strings.Fields(label)
	n := len(ws)
	for n > 1 && resultWords[strings.ToLower(strings.Trim(ws[n-1], ":.,"))] {
		n--
	}
	return strings.Join(ws[:n], " ")
}

// isPanelRef reports whether a word refers to a figure or panel: a number,
// a letter, or both ("2", "b", "1a").
func isPanelRef(w string) bool {
	letters := 0
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
		case !unicode.IsDigit(r):
			return false
		}
	}
	return w != "" && letters <= 1
}

// sectionName names a section's test: its kind's name where its heading is
// only a heading ("Laboratory Tests" is "laboratory tests", alias "labs"),
// the test it names otherwise ("Ultrasound Findings" is an ultrasound); an
// unheaded section is named by the kind its text speaks of.
func sectionName(s *testSection) (string, []string) {
	if s.label == "" {
		if k, ok := kindOf(s.result()); ok {
			return k.name, k.aliases
		}
		return "diagnostic tests", []string{"tests", "investigations"}
	}
	if k, ok := kindOf(s.label); ok && isHeading(s.label) {
		return k.name, append([]string{s.label, trimResultWords(s.label)}, k.aliases...)
	}
	name, aliases := testName(s.label)
	return name, append(aliases, s.label)
}
