package gpagent

import (
	"github.com/clinevo/clinevo/clinic"
)

// stepOf reads an event as a step of GPAgentBench's constrained MDP (§4.2):
// the action as the doctor gave it (diagnose's committed diagnosis, the
// closing action's plan or referral); its safety cost, the protocol penalty
// charged to it (c_workflow for a masked action, c_timeout at the turn
// limit: appendix C.6), is StepOfEvent's Penalty.
func stepOf(ev clinic.Event) clinic.DoctorOutput {
	st := StepOfEvent(ev)
	a := clinic.DoctorOutput{Action: ev.Action, Question: ev.Question, TestName: ev.Test, Rationale: ev.Rationale, WorkingDiagnoses: ev.WorkingDiagnoses}
	x := Output{Target: st.Target}
	if ev.Action == Diagnose {
		a.Diagnosis = ev.WorkingDiagnoses // the committed diagnosis
	}
	if ev.Final != nil {
		a.Diagnosis, a.Evidence, a.Plan, a.Followup = ev.Final.Diagnosis, ev.Final.Evidence, ev.Final.Plan, ev.Final.Followup
		end := EndingOf(*ev.Final)
		x.Destination, x.Urgency = end.Destination, end.Urgency
	}
	return WithOutput(a, x)
}
