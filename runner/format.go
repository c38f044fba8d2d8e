package runner

import (
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

// eventTarget is what an action of a trace was about: the benchmark b's
// reading of its own actions (episode.Targets), else the question, the test
// or examination target, the committed diagnosis, or the referral.
func eventTarget(b any, ev clinic.Event) string {
	if s, ok := episode.OwnTarget(b, ev); ok {
		return s
	}
	switch ev.Action {
	case clinic.RequestTest:
		return ev.Test
	case clinic.BodyExam:
		return ev.Target
	case clinic.Diagnose:
		return strings.Join(ev.WorkingDiagnoses, "; ")
	case clinic.Refer:
		if ev.Final != nil {
			return disposition(*ev.Final)
		}
	}
	return ev.Question
}

// disposition renders how a profile's encounter ended: manage, or refer with
// the destination and urgency.
func disposition(f clinic.FinalOutput) string {
	if f.Disposition != clinic.PathwayRefer {
		return f.Disposition
	}
	s := "refer to " + f.Destination
	if f.Urgency != "" {
		s += " (" + f.Urgency + ")"
	}
	return s
}
