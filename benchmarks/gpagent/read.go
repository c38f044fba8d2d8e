package gpagent

import (
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
)

// How the generic packages read the workflow's events (bench.Describe):
// what each action was about, the disposition an episode ended with, a
// step's safety cost as a trace shows it, and the step of the constrained
// MDP (trajectory.go).

var _ bench.Describer = Benchmark{}

// Describe reads one of the workflow's events.
func (b Benchmark) Describe(ev clinic.Event) bench.Description {
	d := bench.Description{Note: note(ev), SafetyCost: StepOfEvent(ev).Penalty}
	d.Target, d.Own = target(ev)
	if ev.Final != nil {
		d.Disposition = disposition(*ev.Final)
	}
	step := stepOf(ev)
	d.Step = &step
	return d
}

// target is what one of the workflow's own actions was about: an
// examination's target, the diagnosis diagnose committed to, the
// destination and urgency of a referral, the diagnosis treat treated. The
// shared actions (ask, test) are the shared reading's (false).
func target(ev clinic.Event) (string, bool) {
	switch ev.Action {
	case BodyExam:
		return StepOfEvent(ev).Target, true
	case Diagnose:
		if ev.Status != clinic.StatusReturned {
			return "", true // nothing was committed
		}
		return strings.Join(ev.WorkingDiagnoses, "; "), true
	case Refer:
		if ev.Final == nil {
			return "", true
		}
		return destination(EndingOf(*ev.Final)), true
	case Treat:
		if ev.Final == nil {
			return "", true
		}
		return strings.Join(ev.Final.Diagnosis, "; "), true
	}
	return "", false
}

// disposition is how a consultation ended (§4): manage, or refer with the
// destination and urgency; "" for a timeout.
func disposition(f clinic.FinalOutput) string {
	end := EndingOf(f)
	if end.Disposition != PathwayRefer {
		return end.Disposition
	}
	return "refer to " + destination(end)
}

// destination is a referral's destination with its urgency.
func destination(end Ending) string {
	if end.Urgency == "" {
		return end.Destination
	}
	return end.Destination + " (" + end.Urgency + ")"
}

// note is a step's safety cost, where one was charged.
func note(ev clinic.Event) string {
	if p := StepOfEvent(ev).Penalty; p > 0 {
		return fmt.Sprintf("safety cost: %g", p)
	}
	return ""
}
