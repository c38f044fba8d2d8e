package episode

import (
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// Targets is a benchmark's reading of its own actions: what an event was
// about (an examination's target, a tool call with its arguments, a
// referral's destination). A capability; Target reports false for an action
// it leaves to the shared reading.
type Targets interface {
	Target(ev clinic.Event) (string, bool)
}

// Target is what an action of benchmark b was about: b's reading where it has
// one (OwnTarget), else the question-and-test environment's: the test, the
// committed or final diagnosis, or the topic or question.
func Target(b any, ev clinic.Event) string {
	if s, ok := OwnTarget(b, ev); ok {
		return s
	}
	switch {
	case ev.Action == clinic.RequestTest:
		return ev.Test
	case ev.Final != nil && len(ev.Final.Diagnosis) > 0:
		return strings.Join(ev.Final.Diagnosis, "; ")
	case ev.Topic != "":
		return ev.Topic
	}
	return ev.Question
}

// OwnTarget is benchmark b's reading of what an action was about; false
// where b has none for it, and a line of a record or a page keeps its own
// reading of the shared actions.
func OwnTarget(b any, ev clinic.Event) (string, bool) {
	if t, ok := b.(Targets); ok {
		return t.Target(ev)
	}
	return "", false
}

// Dispositions is a benchmark's words for how an episode ended where it
// distinguishes more than a diagnosis (a capability): the disposition its
// closing action chose ("sent to cardiology, urgently"), "" where there is
// none to tell.
type Dispositions interface {
	Disposition(f clinic.FinalOutput) string
}

// Disposition is b's words for how an episode ended; "" for a benchmark
// without Dispositions.
func Disposition(b any, f clinic.FinalOutput) string {
	if d, ok := b.(Dispositions); ok {
		return d.Disposition(f)
	}
	return ""
}
