package bench

import (
	"github.com/clinevo/clinevo/clinic"
)

// Description is a benchmark's reading of one event of its episodes: what
// every consumer (a trace in a terminal, an episode record, the process
// grader's prompt, the episode page, the report's trajectories, exports)
// shows or keeps of it. An empty field is left to the shared reading.
type Description struct {
	// Target is what the action was about, on one line: an examination's
	// target, a tool with its arguments, a referral's destination. Own
	// says the benchmark gave it (an empty Target then means "nothing").
	Target string
	Own    bool
	// Said is who or what answered, as the episode page names it ("tool").
	Said string
	// Name is the action's short name where Detail holds the rest (a
	// tool's name beside its arguments); "" shows Target.
	Name string
	// Detail is structured detail shown preformatted (a tool call's
	// arguments, indented).
	Detail string
	// Note is a line under the event in a trace: what the shared fields do
	// not tell, such as a safety cost charged to the step.
	Note string
	// Disposition is, for a closing event (Final set), how the episode
	// ended in the benchmark's words where it distinguishes more than a
	// diagnosis ("refer to cardiology (urgent)"); "" where there is none.
	Disposition string
	// Step is the action as the doctor gave it, read as a step of a
	// constrained MDP; nil is the shared step (SharedStep). SafetyCost is the
	// protocol penalty charged to the step.
	Step       *clinic.DoctorOutput
	SafetyCost float64
}

// Describer is a benchmark's reading of its own events (a capability); a
// benchmark without one is read entirely by the shared reading.
type Describer interface {
	Describe(ev clinic.Event) Description
}

// Describe is benchmark b's description of ev, with the shared reading
// where b gives none: the target is the test of a REQUEST_TEST and the
// question otherwise, the step is SharedStep. b may be nil (a run of a
// benchmark this build does not have).
func Describe(b Benchmark, ev clinic.Event) Description {
	var d Description
	if ds, ok := b.(Describer); ok {
		d = ds.Describe(ev)
	}
	if !d.Own {
		d.Target = SharedTarget(ev)
	}
	if d.Name == "" {
		d.Name = d.Target
	}
	if d.Step == nil {
		st := SharedStep(ev)
		d.Step = &st
	}
	return d
}

// SharedTarget is what an action of the question-and-test environment was
// about: the test of a REQUEST_TEST, the question otherwise.
func SharedTarget(ev clinic.Event) string {
	if ev.Action == clinic.RequestTest {
		return ev.Test
	}
	return ev.Question
}

// SharedStep is the question-and-test environment's reading of an event as
// the action the doctor gave: what a benchmark's own step adds its fields to.
func SharedStep(ev clinic.Event) clinic.DoctorOutput {
	a := clinic.DoctorOutput{Action: ev.Action, Question: ev.Question, TestName: ev.Test, Rationale: ev.Rationale, WorkingDiagnoses: ev.WorkingDiagnoses}
	if ev.Final != nil {
		a.Diagnosis, a.Evidence, a.Plan, a.Followup = ev.Final.Diagnosis, ev.Final.Evidence, ev.Final.Plan, ev.Final.Followup
	}
	return a
}

// Disposition is b's words for how an episode that closed with f ended
// (Description.Disposition of its closing event); "" where b has none.
func Disposition(b Benchmark, f clinic.FinalOutput) string {
	return Describe(b, clinic.Event{Final: &f}).Disposition
}

// ShowsU reports whether runs of b have MedEvoEval's utility U (declared as
// metric "u"): where b declares none, or b is not known to this build, U is
// shown as "–", never as the 0 a record holds.
func ShowsU(b Benchmark) bool {
	return b != nil && Declares(b.Metrics(), "u")
}
