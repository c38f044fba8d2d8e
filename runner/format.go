package runner

import (
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

// Notes is a benchmark's line under one of its events in a trace as a
// terminal shows it (a capability): what the shared fields do not tell, such
// as a safety cost charged to the step; "" for none.
type Notes interface {
	Note(ev clinic.Event) string
}

// EventTarget is what an action of a trace was about: benchmark b's reading
// where it has one (episode.OwnTarget), else the question, the test, or the
// working diagnoses of a closing action that gave none.
func EventTarget(b any, ev clinic.Event) string {
	if s, ok := episode.OwnTarget(b, ev); ok {
		return s
	}
	switch ev.Action {
	case clinic.RequestTest:
		return ev.Test
	}
	return ev.Question
}

// note is b's line under an event, "" for none.
func note(b any, ev clinic.Event) string {
	if n, ok := b.(Notes); ok {
		return n.Note(ev)
	}
	return ""
}
