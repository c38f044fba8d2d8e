package evolver

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Forbidden is what the rules and cards learned from one episode must not
// carry, as the harness sees the case (runner.Forbidden builds it).
type Forbidden struct {
	IDs      []string // the case ID and the source case ID
	Hidden   []string // fact, finding and result texts the episode did not reveal
	Revealed []string // what the doctor saw or said: demographics, opening, answers, returned results, its own output
}

// Screen is the leak screen of one episode. A rule or card may carry the
// write-back (the diagnosis name and the answer key's evidence and management
// key points, in write-back mode only, as MedEvoEval's write-back allows) and
// anything the doctor saw or said in the episode. It may not carry:
//
//   - an identifier of the case (its ID or source case ID, in any case and
//     punctuation; one shorter than four characters or a bare number is not
//     checked, since it would match ordinary text);
//   - a near-duplicate of a hidden fact, finding or result: with the write-back
//     phrases taken out of the text, at least Overlap of the hidden text's
//     token n-grams (N consecutive content words, numbers, units and spans of
//     time left out; an n-gram made only of revealed words does not count)
//     have all their words in the text, in any order; a word cut short (four
//     letters or more) counts as the word. Hidden texts with fewer than two
//     unrevealed words are left to the value check;
//   - a value with a unit or a label from a hidden text ("Hb 92 g/L",
//     "38.9 °C", "120/min", "HR 118"), wherever it stands, even inside a
//     write-back evidence key point, unless the episode revealed it or a
//     management key point holds it (a dose or a threshold).
type Screen struct {
	ids      []string
	allowed  []string // normalised write-back phrases, longest first
	n        int
	overlap  float64
	hidden   []hiddenText
	quantity map[quantity]string // hidden value -> the hidden text it comes from
}

type hiddenText struct {
	text  string
	grams [][]string // n-grams with at least one unrevealed token
}

// NewScreen prepares the screen of one episode. truth is the write-back (nil
// in score-only mode).
func NewScreen(cfg settings.Evolver, f Forbidden, truth *grader.Key) *Screen {
	s := &Screen{n: max(1, cfg.LeakNGram), overlap: cfg.LeakOverlap, quantity: map[quantity]string{}}
	for _, id := range f.IDs {
		// A bare number or a very short ID ("42", "c1") would match ordinary text.
		if n := textmatch.Normalize(id); len(n) >= 4 && strings.Trim(n, "0123456789 ") != "" {
			s.ids = append(s.ids, id)
		}
	}
	exempt := map[quantity]bool{}
	revealed := map[string]bool{}
	for _, r := range f.Revealed {
		for _, t := range roots(r) {
			revealed[t] = true
		}
		for _, q := range quantities(r) {
			exempt[q] = true
		}
	}
	if truth != nil {
		// The write-back's wording is allowed. The values of its management key
		// points are plans (doses, thresholds: "refer if the stone is over
		// 5 mm"); those of its evidence key points are findings, so one that
		// quotes a hidden result ("Heart Rate: 120/min", as imported corpora
		// write them) is about this patient and is not exempt.
		for _, p := range append(append([]string{truth.Diagnosis}, truth.Evidence...), truth.Management...) {
			if p = textmatch.Normalize(p); p != "" {
				s.allowed = append(s.allowed, p)
			}
		}
		for _, p := range truth.Management {
			for _, q := range quantities(p) {
				exempt[q] = true
			}
		}
		sort.SliceStable(s.allowed, func(i, j int) bool { return len(s.allowed[i]) > len(s.allowed[j]) })
	}
	for _, h := range f.Hidden {
		for _, q := range quantities(h) {
			if !exempt[q] {
				s.quantity[q] = h
			}
		}
		toks := words(h)
		unrevealed := map[string]bool{}
		for _, t := range toks {
			if !revealed[t] {
				unrevealed[t] = true
			}
		}
		if len(unrevealed) < 2 {
			continue
		}
		ht := hiddenText{text: h}
		for i := 0; i == 0 || i+s.n <= len(toks); i++ {
			g := toks[i:min(i+s.n, len(toks))] // a text shorter than n is one n-gram
			for _, t := range g {
				if unrevealed[t] {
					ht.grams = append(ht.grams, g)
					break
				}
			}
		}
		s.hidden = append(s.hidden, ht)
	}
	return s
}

// Leaks returns why text may not be stored, or "" when it may. A nil screen
// lets everything through.
func (s *Screen) Leaks(text string) string {
	if s == nil {
		return ""
	}
	low := strings.ToLower(text)
	for _, id := range s.ids {
		if strings.Contains(low, strings.ToLower(id)) || textmatch.ContainsPhrase(text, id) {
			return fmt.Sprintf("identifier %q", id)
		}
	}
	norm := " " + textmatch.Normalize(text) + " "
	for _, a := range s.allowed {
		norm = strings.ReplaceAll(norm, " "+a+" ", " ; ")
	}
	toks := map[string]bool{}
	for _, t := range roots(norm) {
		toks[t] = true
	}
	var cut []string // tokens that may be words cut short
	for t := range toks {
		if len(t) >= 4 {
			cut = append(cut, t)
		}
	}
	has := func(t string) bool {
		if toks[t] {
			return true
		}
		for _, c := range cut {
			if strings.HasPrefix(t, c) {
				return true
			}
		}
		return false
	}
	for _, h := range s.hidden {
		in := 0
		for _, g := range h.grams {
			all := true
			for _, t := range g {
				all = all && has(t)
			}
			if all {
				in++
			}
		}
		if len(h.grams) > 0 && float64(in) >= s.overlap*float64(len(h.grams)) {
			return fmt.Sprintf("near-duplicate of hidden text %q (%d of %d token %d-grams)", h.text, in, len(h.grams), s.n)
		}
	}
	for _, q := range quantities(text) {
		if h, ok := s.quantity[q]; ok {
			return fmt.Sprintf("hidden value %s %s (from %q)", q.value, q.unit, h)
		}
	}
	return ""
}

// Screens are the leak screens of several episodes, for a rule learned from
// all of them (a prompt optimiser's child bred from development episodes):
// a text leaks when it leaks from any one. Nil lets everything through.
type Screens []*Screen

// ScreensOf are the screens of the episodes ins, without write-back: a
// development episode's key is never shown to the optimiser.
func ScreensOf(cfg settings.Evolver, ins []Input) Screens {
	out := make(Screens, len(ins))
	for i, in := range ins {
		out[i] = NewScreen(cfg, in.Forbidden, nil)
	}
	return out
}

// Leaks returns why text may not be stored, the first screen's reason that
// rejects it, or "" when every screen lets it through.
func (ss Screens) Leaks(text string) string {
	for _, s := range ss {
		if why := s.Leaks(text); why != "" {
			return why
		}
	}
	return ""
}

// ScreenCards drops cards whose text leaks (Screen.Leaks).
func ScreenCards(cards []clinic.Card, s *Screen) (kept []clinic.Card, skipped []string) {
	for _, c := range cards {
		text := strings.Join([]string{c.Text, c.SearchText, c.Context, c.Diagnosis, c.Avoid, strings.Join(c.Ask, ", "), strings.Join(c.Tests, ", "),
			strings.Join(c.Evidence, "; "), strings.Join(c.Plan, "; "), strings.Join(c.Followup, "; ")}, "\n")
		if why := s.Leaks(text); why != "" {
			skipped = append(skipped, fmt.Sprintf("card %s rejected: %s", c.ID, why))
			continue
		}
		kept = append(kept, c)
	}
	return kept, skipped
}

// roots are the content tokens of a text stemmed until they stop changing, so
// that "treatments" and "treatment" meet (one pass of textmatch.Stem leaves
// them "treatment" and "treat").
func roots(text string) []string {
	toks := textmatch.Tokens(text)
	for i, t := range toks {
		for s := textmatch.Stem(t); s != t; s = textmatch.Stem(t) {
			t = s
		}
		toks[i] = t
	}
	return toks
}

// unitWords are the pieces units leave after normalisation ("mg/L" -> "mg l").
var unitWords = map[string]bool{"l": true, "dl": true, "ml": true, "mg": true, "g": true, "ng": true, "ug": true, "mmol": true,
	"mol": true, "umol": true, "pmol": true, "miu": true, "u": true, "fl": true, "mmhg": true, "cm": true, "mm": true, "kg": true,
	"cfu": true, "h": true, "min": true, "c": true, "f": true, "bpm": true}

// countWords are numbers and spans of time in words: "two days a week" says
// how often, which plans and follow-ups say too, not what the patient has.
var countWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "twenty": true, "thirty": true, "forty": true,
	"fifty": true, "sixty": true, "hundred": true, "half": true, "once": true, "twice": true, "time": true, "minute": true,
	"hour": true, "day": true, "week": true, "month": true, "year": true}

// words are the content tokens of a hidden text without its numbers, units and
// spans of time, which the value check covers or which say nothing of the
// case: what is left is what the text says in words.
func words(text string) []string {
	var out []string
	for _, t := range roots(text) {
		if !unitWords[t] && !countWords[t] && strings.IndexFunc(t, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
			out = append(out, t)
		}
	}
	return out
}

// quantity is a number with its unit, or with the label that names what it measures.
type quantity struct{ value, unit string }

var (
	number = regexp.MustCompile(`\d+(?:,\d{3})*(?:[.,]\d+)?(?:/\d+(?:[.,]\d+)?)?`)
	// units, longest spelling first, each mapped to one canonical unit.
	units = []struct{ spelling, unit string }{
		{"beats per minute", "/min"}, {"breaths per minute", "/min"}, {"per minute", "/min"}, {"x 10^9/l", "x10^9/l"},
		{"x10^9/l", "x10^9/l"}, {"x10^12/l", "x10^12/l"}, {"mmol/mol", "mmol/mol"}, {"mmol/l", "mmol/l"}, {"meq/l", "mmol/l"},
		{"mm hg", "mmhg"}, {"/mm3", "/mm3"}, {"/µl", "/mm3"}, {"/μl", "/mm3"}, {"/ul", "/mm3"},
		{"cfu/ml", "cfu/ml"}, {"µmol/l", "umol/l"}, {"umol/l", "umol/l"}, {"pmol/l", "pmol/l"}, {"miu/l", "miu/l"},
		{"mg/dl", "mg/dl"}, {"mg/l", "mg/l"}, {"ng/ml", "ng/ml"}, {"ng/l", "ng/l"}, {"µg/l", "ug/l"}, {"ug/l", "ug/l"},
		{"g/dl", "g/dl"}, {"g/l", "g/l"}, {"u/l", "u/l"}, {"mm/h", "mm/h"}, {"mmhg", "mmhg"}, {"degrees", "c"},
		{"°c", "c"}, {"° c", "c"}, {"°f", "f"}, {"/min", "/min"}, {"bpm", "/min"}, {"l/min", "l/min"}, {"kg", "kg"},
		{"cm", "cm"}, {"mm", "mm"}, {"ml", "ml"}, {"fl", "fl"}, {"%", "%"}, {"c", "c"},
	}
	// labels name a measurement when a value comes without a unit ("HR 118").
	labels = []struct{ spelling, unit string }{
		{"heart rate", "/min"}, {"respiratory rate", "/min"}, {"blood pressure", "mmhg"}, {"temperature", "c"},
		{"pulse", "/min"}, {"temp", "c"}, {"hr", "/min"}, {"rr", "/min"}, {"bp", "mmhg"}, {"spo2", "%"},
		{"sao2", "%"}, {"saturation", "%"}, {"saturations", "%"}, {"haemoglobin", "hb"}, {"hemoglobin", "hb"},
		{"hb", "hb"}, {"crp", "crp"}, {"tsh", "tsh"}, {"ferritin", "ferritin"}, {"glucose", "glucose"},
		{"hba1c", "hba1c"}, {"creatinine", "creatinine"}, {"urate", "urate"}, {"bmi", "bmi"}, {"wcc", "wcc"},
		{"white cells", "wcc"}, {"alt", "alt"}, {"d dimer", "d-dimer"}, {"d-dimer", "d-dimer"}, {"ldl", "ldl"},
	}
)

// quantities finds the values of a text that carry a unit or a label.
func quantities(text string) []quantity {
	low := strings.ToLower(text)
	var out []quantity
	for _, loc := range number.FindAllStringIndex(low, -1) {
		i, j := loc[0], loc[1]
		run := 0 // letters just before the number
		for run < i && isLetter(low[i-1-run]) {
			run++
		}
		if i > 0 && (low[i-1] == '.' || low[i-1] == '^') || (run > 0 && run <= 3) {
			continue // an exponent or part of a short code ("x10^9", "t4", "l5", "hba1c"); a long word may hide a value glued to it
		}
		v := canonicalValue(low[i:j])
		rest := low[j:]
		after := strings.TrimLeft(rest, " ")
		for _, u := range units {
			// A bare "c" is Celsius only after a space ("36.7 C"), never inside a code.
			if strings.HasPrefix(after, u.spelling) && (len(after) == len(u.spelling) || !isLetter(after[len(u.spelling)])) &&
				(u.spelling != "c" || len(after) < len(rest)) {
				out = append(out, quantity{v, u.unit})
				break
			}
		}
		before := strings.TrimRight(low[:i], " :=")
		before = strings.TrimSuffix(strings.TrimSuffix(before, " of"), " was")
		for _, l := range labels {
			if strings.HasSuffix(before, l.spelling) && (len(before) == len(l.spelling) || !isLetter(before[len(before)-len(l.spelling)-1])) {
				out = append(out, quantity{v, l.unit})
				break
			}
		}
	}
	return out
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' }

var thousands = regexp.MustCompile(`^\d{1,3}(,\d{3})+$`)

// canonicalValue writes "38,90" and "38.9" alike, and "15,000" as 15000.
func canonicalValue(v string) string {
	if thousands.MatchString(v) {
		v = strings.ReplaceAll(v, ",", "")
	}
	parts := strings.Split(strings.ReplaceAll(v, ",", "."), "/")
	for i, p := range parts {
		if f, err := strconv.ParseFloat(p, 64); err == nil {
			parts[i] = strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return strings.Join(parts, "/")
}
