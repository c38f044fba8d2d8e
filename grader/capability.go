package grader

import "github.com/clinevo/clinevo/clinic"

// Labeler labels the actions of a benchmark's own environment: its own
// action kinds, and shared ones it labels differently (a capability of the
// run's benchmark). LabelAction reports false for an action it leaves to the
// shared labels (GradeProcess).
type Labeler interface {
	LabelAction(ev clinic.Event, c LabelContext) (ActionGrade, bool)
}

// LabelContext is what a label may read beside the event: the outcome, the
// write-back key (nil under score-only feedback), whether a reply supports
// the assessment, and the run's grading options.
type LabelContext struct {
	Outcome Outcome
	Key     *Key
	// Supports reports whether a reply was used: it covers most of a cited
	// evidence item or, with the write-back, of a key point.
	Supports  func(reply string) bool
	Prices    map[string]float64
	YieldOnly bool
}

// KeyMaker adds a benchmark's own part of the answer key to the manager's
// write-back (a capability): what its lessons and labels need beyond the
// shared key, kept in Key.Bench.
type KeyMaker interface {
	WriteBack(c *clinic.Case, s clinic.Scores) any
}

// LabelerOf is b's Labeler, nil when it has none.
func LabelerOf(b any) Labeler {
	l, _ := b.(Labeler)
	return l
}

// KeyOfBench is the write-back key of a scored episode under benchmark b:
// the shared key with b's own part.
func KeyOfBench(b any, c *clinic.Case, s clinic.Scores) *Key {
	k := KeyOf(c, s)
	if m, ok := b.(KeyMaker); ok {
		k.Bench = m.WriteBack(c, s)
	}
	return k
}
