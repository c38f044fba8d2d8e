package episode

import (
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// Log is an environment's state: its events so far and how it ended. Every
// environment (Episode here, and the benchmarks' own Env types) embeds
// one, so that each is rebuilt from its events the same way and the
// workflow reads them alike (Events, Done, Final).
type Log struct {
	events []clinic.Event
	final  *clinic.FinalOutput
	end    clinic.Termination
}

// Events returns a copy of the events so far.
func (l *Log) Events() []clinic.Event { return append([]clinic.Event(nil), l.events...) }

// Seen returns the events so far without copying them, for reading only.
func (l *Log) Seen() []clinic.Event { return l.events }

// Len is the number of events so far.
func (l *Log) Len() int { return len(l.events) }

// Latest returns the last event.
func (l *Log) Latest() clinic.Event { return l.events[len(l.events)-1] }

// Done reports whether the episode has ended.
func (l *Log) Done() bool { return l.end != "" }

// Final returns the final output and how the episode ended.
func (l *Log) Final() (clinic.FinalOutput, clinic.Termination) {
	if l.final == nil {
		return clinic.FinalOutput{}, l.end
	}
	return *l.final, l.end
}

// Record appends ev and ends the log when ev finalizes (EndFinalized) or
// carries a forced final (EndTurnLimit: an event stored by ForceEnd, read
// back). It reports whether the log has ended.
func (l *Log) Record(ev clinic.Event) bool {
	l.events = append(l.events, ev)
	switch {
	case ev.Status == clinic.StatusFinalized:
		l.final, l.end = ev.Final, clinic.EndFinalized
	case ev.ForcedFinal != nil:
		l.final, l.end = ev.ForcedFinal, clinic.EndTurnLimit
	}
	return l.end != ""
}

// ForceEnd ends the log at its limit with f, written on the last event so
// that a rebuild from the events ends the same way. It returns that event
// for the caller to amend (a timeout penalty).
func (l *Log) ForceEnd(f *clinic.FinalOutput) *clinic.Event {
	last := &l.events[len(l.events)-1]
	last.ForcedFinal = f
	l.final, l.end = f, clinic.EndTurnLimit
	return last
}

// Named are the non-blank entries of a doctor's list, trimmed: the
// diagnoses a closing action or a working differential names.
func Named(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// LatestWorking is the doctor's latest working diagnoses among events
// (Named), none when it gave none: what an environment submits for it at
// its turn limit.
func LatestWorking(events []clinic.Event) []string {
	for i := len(events) - 1; i >= 0; i-- {
		if dx := Named(events[i].WorkingDiagnoses); len(dx) > 0 {
			return dx
		}
	}
	return nil
}
