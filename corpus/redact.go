package corpus

import (
	"fmt"
	"io"

	"github.com/clinevo/clinevo/clinic"
)

// Redactor applies a leak guard to what an importer writes into the
// patient and exam views and lists what it withheld, one line each, for
// Provenance.Redactions.
type Redactor struct {
	Guard LeakGuard
	Lines []string
}

// Mask masks the guarded names in text: for a field that must keep its
// text (the opening complaint).
func (w *Redactor) Mask(field, text string) string {
	if term := w.Guard.Names(text); term != "" {
		w.Lines = append(w.Lines, fmt.Sprintf("%s: masked %q", field, term))
		return w.Guard.Mask(text)
	}
	return text
}

// Keep reports whether a sentence of field may be kept: one that names the
// diagnosis is dropped, and listed.
func (w *Redactor) Keep(field, sentence string) bool {
	if term := w.Guard.Names(sentence); term != "" {
		w.Lines = append(w.Lines, fmt.Sprintf("%s: dropped a sentence naming %q", field, term))
		return false
	}
	return true
}

// Findings groups examination sentences by body system (FindingSystem), in
// the order each system first appears, without those naming the diagnosis.
func (w *Redactor) Findings(sentences []string) []clinic.Finding {
	var out []clinic.Finding
	at := map[string]int{}
	for _, s := range sentences {
		if !w.Keep("exam_view.findings", s) {
			continue
		}
		sys, abnormal := FindingSystem(s), AbnormalLeaf("", s)
		if i, ok := at[sys]; ok {
			out[i].Text += " " + s
			out[i].Abnormal = out[i].Abnormal || abnormal
			continue
		}
		at[sys] = len(out)
		out = append(out, clinic.Finding{System: sys, Text: s, Abnormal: abnormal})
	}
	return out
}

// WriteRedactions lists what an import redacted of each case (a text that
// named the diagnosis), then how many cases it redacted; nothing when it
// redacted nothing.
func WriteRedactions(w io.Writer, cases []clinic.Case) {
	redacted := 0
	for _, c := range cases {
		for _, r := range c.Provenance.Redactions {
			fmt.Fprintf(w, "case %s: redacted: %s\n", c.ID, r)
		}
		if len(c.Provenance.Redactions) > 0 {
			redacted++
		}
	}
	if redacted > 0 {
		fmt.Fprintf(w, "redacted cases: %d (a text named the diagnosis)\n", redacted)
	}
}
