package gpagent

import (
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/runner"
)

// How the generic packages read the workflow's events: what each action was
// about, the disposition an episode ended with, and a step's safety cost as
// a trace shows it.

var (
	_ episode.Targets      = Benchmark{}
	_ episode.Dispositions = Benchmark{}
	_ runner.Notes         = Benchmark{}
)

// Target is what one of the workflow's own actions was about: an
// examination's target, the diagnosis diagnose committed to, the
// destination and urgency of a referral, the diagnosis treat treated. The
// shared actions (ask, test) are the shared reading's.
func (Benchmark) Target(ev clinic.Event) (string, bool) {
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

// Disposition is how a consultation ended (§4): manage, or refer with the
// destination and urgency; "" for a timeout.
func (Benchmark) Disposition(f clinic.FinalOutput) string {
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

// Note is a step's safety cost, where one was charged.
func (Benchmark) Note(ev clinic.Event) string {
	if p := StepOfEvent(ev).Penalty; p > 0 {
		return fmt.Sprintf("safety cost: %g", p)
	}
	return ""
}
