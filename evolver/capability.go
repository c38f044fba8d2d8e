package evolver

import (
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Lessons are what a benchmark's own actions teach beyond the shared cards
// and rules (a capability of the run's benchmark): Cards completes the
// cards of an episode (the built-in evolver's or a model's) from the trace
// and the key, before the run's card kinds and the leak screen apply; Edits
// proposes rule edits that follow from the trace and the key alone.
type Lessons interface {
	Cards(in Input, truth *grader.Key, cards []clinic.Card) []clinic.Card
	Edits(cfg settings.Evolver, in Input, truth *grader.Key) []Edit
}

// LessonsOf is b's Lessons, nil when it has none.
func LessonsOf(b any) Lessons {
	l, _ := b.(Lessons)
	return l
}
