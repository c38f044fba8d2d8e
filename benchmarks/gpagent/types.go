package gpagent

import (
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// The workflow's own actions (§4): ask and test are the shared clinic.Ask
// and clinic.RequestTest.
const (
	BodyExam clinic.ActionKind = "BODY_EXAM"
	Diagnose clinic.ActionKind = "DIAGNOSE"
	Treat    clinic.ActionKind = "TREAT"
	Refer    clinic.ActionKind = "REFER"
)

// ActionName is an action's name in the paper's action format (appendix
// C.1: <action type="...">) and in settings episode.actions: lower case, and
// "test" for REQUEST_TEST.
func ActionName(k clinic.ActionKind) string {
	if k == clinic.RequestTest {
		return "test"
	}
	return strings.ToLower(string(k))
}

// ActionNamed returns the action of the six a name stands for: its
// ActionName or its kind, in any case and with surrounding space.
func ActionNamed(name string) (clinic.ActionKind, bool) {
	n := strings.TrimSpace(name)
	for _, k := range Actions {
		if strings.EqualFold(n, ActionName(k)) || strings.EqualFold(n, string(k)) {
			return k, true
		}
	}
	return "", false
}

// The management pathways of a case (§4 and C.2): diagnose and treat in
// primary care, or refer.
const (
	PathwayManage = "manage"
	PathwayRefer  = "refer"
)

// Pathways lists the management labels a case may carry.
var Pathways = []string{PathwayManage, PathwayRefer}

// Urgencies are a referral's urgency levels (appendix C.1).
var Urgencies = []string{"routine", "urgent", "emergency"}

// ParseUrgency reads an urgency in any case and with surrounding space;
// "emergent", as records write it (A.2), is emergency. ok is false for
// anything else, returned lower-cased.
func ParseUrgency(u string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(u))
	if n == "emergent" {
		n = "emergency"
	}
	for _, x := range Urgencies {
		if n == x {
			return n, true
		}
	}
	return n, false
}

// ReferAction is a card's action for a referral: "REFER:<urgency>:<destination>".
func ReferAction(destination, urgency string) string {
	return string(Refer) + ":" + urgency + ":" + destination
}

// ParseReferAction reads a ReferAction; ok is false for any other action.
func ParseReferAction(action string) (destination, urgency string, ok bool) {
	rest, ok := strings.CutPrefix(action, string(Refer)+":")
	if !ok {
		return "", "", false
	}
	urgency, destination, ok = strings.Cut(rest, ":")
	return destination, urgency, ok && destination != ""
}

// ManageAction is a card's action that advises managing a presentation in
// primary care rather than referring it.
const ManageAction = "MANAGE"

// The benchmark's own members of the shared records, kept in their Ext
// (written inline, under the JSON names they always had).

// Output are the fields of the workflow's actions in a doctor's output
// (clinic.DoctorOutput.Ext).
type Output struct {
	Target      string `json:"target,omitempty"`      // body_exam: what to examine
	Reason      string `json:"reason,omitempty"`      // body_exam, test, refer: why
	Destination string `json:"destination,omitempty"` // refer: the Emergency Department or a specialty
	Urgency     string `json:"urgency,omitempty"`     // refer: routine | urgent | emergency
}

// Step are the fields of the workflow's events (clinic.Event.Ext).
type Step struct {
	// Target is a body_exam's examination target.
	Target string `json:"target,omitempty"`
	// Penalty is the safety cost charged to the step: c_workflow for a
	// masked action, c_timeout at the turn limit (§4.2, C.6); Event.Cost
	// stays the diagnostic cost.
	Penalty float64 `json:"penalty,omitempty"`
}

// Ending is how a consultation ended (clinic.FinalOutput.Ext): manage
// (diagnose and treat locally) or refer, with where and how soon.
type Ending struct {
	Disposition string `json:"disposition,omitempty"`
	Destination string `json:"destination,omitempty"` // refer: where
	Urgency     string `json:"urgency,omitempty"`     // refer: how soon
}

// Management is a case's management answer (clinic.ManagerView.Ext).
type Management struct {
	// Label is the ground-truth terminal pathway (§4, C.2): manage or refer;
	// empty: read from the referral (Pathway).
	Label string `json:"management_label,omitempty"`
	// Treatment is the ground-truth plan the Tx judge compares a treat
	// against (C.2); empty: the management key points.
	Treatment []string `json:"treatment,omitempty"`
}

// View is the benchmark's part of the doctor's view (clinic.DoctorView.Ext,
// appendix C.1; the workflow state is the shared DoctorView.Phase): the
// actions the state masks, the diagnosis the doctor committed to, and the
// record's examination targets. It holds nothing the doctor may not see.
type View struct {
	Masked      []string `json:"masked,omitempty"`       // actions the workflow masks this turn
	Diagnosis   []string `json:"diagnosis,omitempty"`    // the doctor's own committed diagnosis
	ExamTargets []string `json:"exam_targets,omitempty"` // body_exam targets recorded for this case
}

// DoctorViewExt marks View as a part of the doctor's view.
func (View) DoctorViewExt() {}

// ViewOf is the benchmark's part of a view; zero for a view without one.
func ViewOf(v clinic.DoctorView) View {
	gv, _ := v.Ext.(View)
	return gv
}

// The readers and writers of the members. A record of this benchmark holds
// members it wrote itself; a member that does not decode (a record edited by
// hand) reads as absent rather than failing a reader that cannot return an
// error (ValidateCase reports it for a case).

// read decodes the members of x that T names.
func read[T any](x clinic.Ext) T {
	var v T
	_ = x.Decode(&v) // see above: an undecodable member reads as absent
	return v
}

// OutputOf reads an output's fields.
func OutputOf(o clinic.DoctorOutput) Output { return read[Output](o.Ext) }

// WithOutput returns o with the fields x.
func WithOutput(o clinic.DoctorOutput, x Output) clinic.DoctorOutput {
	o.Ext = put(o.Ext, x)
	return o
}

// StepOfEvent reads an event's fields.
func StepOfEvent(ev clinic.Event) Step { return read[Step](ev.Ext) }

// WithStep returns ev with the fields x.
func WithStep(ev clinic.Event, x Step) clinic.Event {
	ev.Ext = put(ev.Ext, x)
	return ev
}

// setStep writes an event's fields.
func setStep(ev *clinic.Event, x Step) { *ev = WithStep(*ev, x) }

// EndingOf reads how a final output ended.
func EndingOf(f clinic.FinalOutput) Ending { return read[Ending](f.Ext) }

// WithEnding returns f with the ending x.
func WithEnding(f clinic.FinalOutput, x Ending) clinic.FinalOutput {
	f.Ext = put(f.Ext, x)
	return f
}

// final is the final output of a closing action with its ending.
func final(f clinic.FinalOutput, x Ending) *clinic.FinalOutput {
	f = WithEnding(f, x)
	return &f
}

// ManagementOf reads a case's management answer.
func ManagementOf(c *clinic.Case) Management { return read[Management](c.Manager.Ext) }

// SetManagement writes a case's management answer.
func SetManagement(c *clinic.Case, x Management) { c.Manager.Ext = put(c.Manager.Ext, x) }

// put writes the members of v into x.
func put(x clinic.Ext, v any) clinic.Ext {
	out, _ := x.Put(v) // Put fails only for a value that is no JSON object; these are structs of strings and numbers
	return out
}
