// Package gpagent is GPAgentBench's environment (§4): primary care as a
// constrained MDP with six actions (ask, body_exam, test, diagnose, refer,
// treat) under a workflow mask, two valid terminal outcomes (diagnose then
// treat a case manageable in primary care, or refer one that needs
// escalation), examination and test targets derived from the record, and the
// paper's rewards and costs (appendix C.2).
package gpagent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Workflow states (appendix C.1: "Current workflow state").
const (
	Collecting = "collecting_evidence" // ask, body_exam, test, diagnose, refer
	Diagnosed  = "diagnosed"           // treat only
	Treated    = "treated"
	Referred   = "referred"
	TimedOut   = "timed_out" // no terminal action within the turn limit
)

// Actions are the six actions in the order of the paper's prompt (C.1).
var Actions = []clinic.ActionKind{clinic.Ask, BodyExam, clinic.RequestTest, Diagnose, Refer, Treat}

// evidence are the information-gathering actions whose evidence the action
// space ablation shows up front when they are left out (§5.1, Figure 3).
var evidence = []clinic.ActionKind{clinic.Ask, BodyExam, clinic.RequestTest}

// admissible is the workflow prior's mask M(s_t) (§4.2): while collecting
// evidence, ask, body_exam and test recurse, refer abstains and ends the
// episode, diagnose moves to the diagnosed state; there, treat is the only
// (terminal) action.
func admissible(state string, a clinic.ActionKind) bool {
	switch state {
	case Collecting:
		return a != Treat && slices.Contains(Actions, a)
	case Diagnosed:
		return a == Treat
	}
	return false
}

// Enabled is the action set of a run: episode.actions by name (ActionNames),
// all six when empty.
func Enabled(e Episode) []clinic.ActionKind {
	if len(e.Actions) == 0 {
		return Actions
	}
	var out []clinic.ActionKind
	for _, a := range Actions {
		if slices.Contains(e.Actions, ActionName(a)) {
			out = append(out, a)
		}
	}
	return out
}

// Env is one GP consultation in progress. Its state is its events: Start
// rebuilds it from them without calling any role.
type Env struct {
	c       clinic.Case
	cfg     settings.Episode
	gp      Episode
	roles   episode.Roles
	enabled []clinic.ActionKind
	cat     *catalog.Catalog
	episode.Log
	// steps are the events' own fields (Step), decoded once per event.
	steps []Step
}

var _ episode.Env = (*Env)(nil)

// Start begins an episode of c, or rebuilds one from its events. The error
// names a benchmark key of the wrong type.
func Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (*Env, error) {
	gp, err := EpisodeOf(s)
	if err != nil {
		return nil, err
	}
	e := &Env{c: c, cfg: s.Episode, gp: gp, roles: roles, enabled: Enabled(gp), cat: episode.CaseCatalog(&c)}
	for _, ev := range events {
		e.apply(ev)
	}
	return e, nil
}

// State is the workflow state.
func (e *Env) State() string {
	final, end := e.Final()
	switch {
	case end == clinic.EndTurnLimit:
		return TimedOut
	case e.Done() && EndingOf(final).Disposition == PathwayRefer:
		return Referred
	case e.Done():
		return Treated
	case e.diagnosis() != nil:
		return Diagnosed
	}
	return Collecting
}

// diagnosis is the diagnosis committed with diagnose, nil before.
func (e *Env) diagnosis() []string {
	events := e.Seen()
	for i := len(events) - 1; i >= 0; i-- {
		if ev := events[i]; ev.Action == Diagnose && ev.Status == clinic.StatusReturned {
			return ev.WorkingDiagnoses
		}
	}
	return nil
}

func (e *Env) on(a clinic.ActionKind) bool { return slices.Contains(e.enabled, a) }

// Admissible lists the actions the doctor may take now, and those the
// workflow masks.
func (e *Env) Admissible() (allowed, masked []clinic.ActionKind) {
	state := e.State()
	for _, a := range e.enabled {
		if admissible(state, a) {
			allowed = append(allowed, a)
		} else if state == Collecting || state == Diagnosed {
			masked = append(masked, a)
		}
	}
	return allowed, masked
}

// View is the doctor's input (appendix C.1): the presentation, the workflow
// state, the allowed and masked actions, the rounds, the record's examination
// and test targets, and everything revealed so far. With an evidence action
// left out of the action set, its evidence is part of the opening
// presentation (§5.1: the action-space ablation).
func (e *Env) View(cards []clinic.CardHint, rules []string) clinic.DoctorView {
	v := clinic.DoctorView{Demographics: e.c.Patient.Demographics, OpeningComplaint: e.c.Patient.OpeningComplaint,
		Cards: cards, Rules: rules, Turn: e.Len(), MaxTurns: e.cfg.MaxTurns, Phase: e.State()}
	gv := View{Diagnosis: e.diagnosis()}
	allowed, masked := e.Admissible()
	for _, a := range allowed {
		v.Actions = append(v.Actions, string(a))
	}
	for _, a := range masked {
		gv.Masked = append(gv.Masked, string(a))
	}
	if e.on(BodyExam) {
		gv.ExamTargets = e.examTargets()
	}
	v.Ext = gv
	if e.on(clinic.RequestTest) {
		for _, t := range e.c.Exam.Tests {
			v.Catalog = append(v.Catalog, t.Name)
		}
	}
	v.Exchanges, v.Results = e.upfront()
	for i, ev := range e.Seen() {
		switch ev.Action {
		case clinic.Ask:
			if ev.Status == clinic.StatusReturned {
				v.Exchanges = append(v.Exchanges, clinic.Exchange{Question: ev.Question, Topic: ev.Topic, Answer: ev.Reply, Answered: len(ev.RevealedFacts) > 0})
			}
		case BodyExam:
			if ev.Status != clinic.StatusMasked {
				v.Results = append(v.Results, clinic.Result{Test: e.steps[i].Target, Status: ev.Status, Text: ev.Reply})
			}
		case clinic.RequestTest:
			if ev.Status != clinic.StatusMasked {
				v.Results = append(v.Results, clinic.Result{Test: ev.Test, Status: ev.Status, Text: ev.Reply})
				if ev.Status == clinic.StatusReturned {
					v.TestsUsed++
				}
			}
		}
	}
	return v
}

// upfront is the evidence of the evidence actions left out of the action set
// (§5.1, Figure 3): the history as one exchange, each recorded examination
// and test result as a returned result.
func (e *Env) upfront() ([]clinic.Exchange, []clinic.Result) {
	var ex []clinic.Exchange
	var rs []clinic.Result
	if !e.on(clinic.Ask) {
		var facts []string
		for _, f := range e.c.Patient.Facts {
			facts = append(facts, f.Text)
		}
		ex = append(ex, clinic.Exchange{Question: "History given with the presentation", Answer: strings.Join(facts, " "), Answered: len(facts) > 0})
	}
	if !e.on(BodyExam) {
		for _, sys := range e.systems() {
			rs = append(rs, clinic.Result{Test: TargetName(sys), Status: clinic.StatusReturned, Text: e.finding(sys)})
		}
	}
	if !e.on(clinic.RequestTest) {
		for _, t := range e.c.Exam.Tests {
			rs = append(rs, clinic.Result{Test: t.Name, Status: clinic.StatusReturned, Text: t.Result})
		}
	}
	return ex, rs
}

// Revealed is everything the doctor could have seen: demographics, the
// opening, the evidence shown up front, answers and returned results.
func (e *Env) Revealed() string {
	parts := []string{e.c.Patient.Demographics.Text, e.c.Patient.OpeningComplaint}
	ex, rs := e.upfront()
	for _, x := range ex {
		parts = append(parts, x.Answer)
	}
	for _, r := range rs {
		parts = append(parts, r.Text)
	}
	for _, ev := range e.Seen() {
		if ev.Status == clinic.StatusReturned && slices.Contains(evidence, ev.Action) {
			parts = append(parts, ev.Reply)
		}
	}
	return strings.Join(parts, "\n")
}

// Step applies one doctor action. An action outside M(s_t) (or outside the
// run's action set) is recorded with status masked and costs c_workflow, and
// the episode goes on; without a terminal action by the turn limit the last
// step costs c_timeout (C.6). Role errors leave the episode unchanged.
func (e *Env) Step(ctx context.Context, in episode.StepInput) (clinic.Event, error) {
	if e.Done() {
		return clinic.Event{}, episode.ErrDone
	}
	out, x := in.Output, OutputOf(in.Output)
	ev := clinic.Event{Turn: e.Len(), Action: out.Action, Question: out.Question, Topic: out.Topic,
		RetrievedCards: in.RetrievedCards, PrunedCards: in.PrunedCards, Rationale: out.Rationale, WorkingDiagnoses: out.WorkingDiagnoses, LLMError: in.LLMError}
	if r := strings.TrimSpace(x.Reason); r != "" {
		ev.Rationale = append(slices.Clone(ev.Rationale), r)
	}
	var st Step
	allowed, _ := e.Admissible()
	switch {
	case in.LLMError:
		ev.Status = clinic.StatusUnparseable
	case !slices.Contains(allowed, out.Action):
		ev.Status, st.Penalty = clinic.StatusMasked, e.gp.WorkflowPenalty
		ev.Reply = fmt.Sprintf("MASKED: %s is not allowed in workflow state %s; allowed: %s", ActionName(out.Action), e.State(), names(allowed))
	case out.Action == clinic.Ask:
		if err := episode.AskPatient(ctx, e.c, e.roles.Patient, e.Seen(), out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == BodyExam:
		st.Target = e.examine(x.Target, &ev)
	case out.Action == clinic.RequestTest:
		if err := e.test(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == Diagnose:
		dx := textmatch.NonBlank(out.Diagnosis)
		if len(dx) == 0 {
			ev.Status, ev.Reply = clinic.StatusUnparseable, "diagnose needs a Diagnosis"
			break
		}
		// The committed diagnosis is the event's working diagnosis.
		ev.Status, ev.WorkingDiagnoses = clinic.StatusReturned, dx
		ev.Reply = "Working diagnosis recorded: " + strings.Join(dx, "; ") + ". The only next action is treat."
	case out.Action == Treat:
		plan := textmatch.NonBlank(out.Plan)
		if len(plan) == 0 {
			ev.Status, ev.Reply = clinic.StatusUnparseable, "treat needs a Plan"
			break
		}
		// Dx is judged on the diagnosis the doctor committed to (C.2); the
		// treat action's own Diagnosis names the same condition.
		ev.Status = clinic.StatusFinalized
		ev.Final = final(clinic.FinalOutput{Diagnosis: e.diagnosis(), Plan: plan, Followup: textmatch.NonBlank(out.Followup)}, Ending{Disposition: PathwayManage})
	case out.Action == Refer:
		dest := strings.TrimSpace(x.Destination)
		if dest == "" {
			ev.Status, ev.Reply = clinic.StatusUnparseable, "refer needs a Destination"
			break
		}
		ev.Status = clinic.StatusFinalized
		urgency, _ := ParseUrgency(x.Urgency) // kept as written (lower case) when it is none of the three
		ev.Final = final(clinic.FinalOutput{}, Ending{Disposition: PathwayRefer, Destination: dest, Urgency: urgency})
	}
	setStep(&ev, st)
	e.apply(ev)
	return e.Latest(), nil
}

// apply records an event and derives the episode's end from it.
func (e *Env) apply(ev clinic.Event) {
	e.steps = append(e.steps, StepOfEvent(ev))
	if !e.Record(ev) && e.Len() >= e.cfg.MaxTurns {
		// c_timeout (C.6): no terminal action within the limit. Recorded on the
		// event, with the forced final, so that Start derives the same end.
		last := e.ForceEnd(&clinic.FinalOutput{Diagnosis: e.diagnosis(), Forced: true})
		st := &e.steps[len(e.steps)-1]
		st.Penalty += e.gp.TimeoutPenalty
		setStep(last, *st)
	}
}

func names(as []clinic.ActionKind) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = ActionName(a)
	}
	return strings.Join(out, ", ")
}

// ---- examination and test targets ----

// systems are the body systems the record holds findings for, in record order.
func (e *Env) systems() []string {
	var out []string
	for _, f := range e.c.Exam.Findings {
		if !slices.Contains(out, f.System) {
			out = append(out, f.System)
		}
	}
	return out
}

// finding is the record's text for one system.
func (e *Env) finding(system string) string {
	var parts []string
	for _, f := range e.c.Exam.Findings {
		if f.System == system {
			parts = append(parts, f.Text)
		}
	}
	return strings.Join(parts, " ")
}

// TargetName is how a system is offered as a body_exam target: the paper's
// "vital signs" and "general appearance", otherwise the system's name.
func TargetName(system string) string {
	switch system {
	case "vitals":
		return "vital signs"
	case "general":
		return "general appearance"
	}
	return system
}

func (e *Env) examTargets() []string {
	var out []string
	for _, s := range e.systems() {
		out = append(out, TargetName(s))
	}
	return out
}

// examSystem resolves a body_exam target to a recorded system: by its name or
// target name, by the catalog's examination items and their aliases ("pulmonary",
// "extremities", "blood pressure"), or by one of those names inside the
// request ("examine the abdomen").
func (e *Env) examSystem(target string) (string, bool) {
	t := textmatch.Normalize(target)
	systems := e.systems()
	for _, s := range systems {
		if t == textmatch.Normalize(s) || t == textmatch.Normalize(TargetName(s)) {
			return s, true
		}
	}
	for _, q := range []string{target, target + " examination"} {
		if it, m := catalog.Default().Lookup(q); m != catalog.MatchNone && it.Free() && it.Name != catalog.PhysicalKey {
			sys := strings.TrimSuffix(it.Name, " examination")
			return sys, slices.Contains(systems, sys)
		}
	}
	for _, s := range systems {
		names := []string{s, TargetName(s)}
		if it, m := catalog.Default().Lookup(catalog.ExamItemName(s)); m != catalog.MatchNone {
			for _, a := range it.Aliases {
				names = append(names, a, strings.TrimSuffix(a, " examination")) // "abdomen examination": "abdomen"
			}
		}
		for _, n := range names {
			if textmatch.ContainsPhrase(target, n) {
				return s, true
			}
		}
	}
	return "", false
}

// examine answers a body_exam from the record and returns the event's
// target; an unlisted target is unavailable, never invented (§4.2).
func (e *Env) examine(target string, ev *clinic.Event) string {
	ev.Free = true
	req := strings.TrimSpace(target)
	if req == "" {
		ev.Status, ev.Reply = clinic.StatusUnparseable, "body_exam needs a Target"
		return req
	}
	sys, ok := e.examSystem(req)
	if !ok {
		ev.Status = clinic.StatusUnavailable
		ev.Reply = fmt.Sprintf("UNAVAILABLE: %q is not a body_exam target recorded for this patient; targets: %s", req, strings.Join(e.examTargets(), ", "))
		return req
	}
	name := TargetName(sys)
	for i, prev := range e.Seen() {
		if prev.Action == BodyExam && prev.Status == clinic.StatusReturned && e.steps[i].Target == name {
			ev.Status, ev.Reply = clinic.StatusDuplicate, "Already examined: "+prev.Reply
			return name
		}
	}
	ev.Status, ev.Reply = clinic.StatusReturned, e.finding(sys)
	return name
}

// test answers a test from the record at its Table 4 price; a test the record
// does not hold is unavailable and costs nothing (no test was done).
func (e *Env) test(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	req := strings.TrimSpace(out.TestName)
	ev.Test = req
	if req == "" {
		ev.Status, ev.Reply = clinic.StatusUnparseable, "test needs a Test"
		return nil
	}
	it, m, err := e.roles.Exam.Resolve(ctx, req, e.cat)
	if err != nil {
		return fmt.Errorf("exam service: %w", err)
	}
	var result *clinic.TestValue
	if m != catalog.MatchNone && !it.Free() {
		for i, t := range e.c.Exam.Tests {
			if t.Name == it.Name {
				result = &e.c.Exam.Tests[i]
			}
		}
	}
	if result == nil {
		ev.Status = clinic.StatusUnavailable
		ev.Reply = fmt.Sprintf("UNAVAILABLE: %q is not a test target recorded for this patient", req)
		if m != catalog.MatchNone && it.Free() {
			ev.Reply += "; examinations are body_exam targets"
		}
		return nil
	}
	ev.Test = it.Name
	for _, prev := range e.Seen() {
		if prev.Action == clinic.RequestTest && prev.Status == clinic.StatusReturned && prev.Test == it.Name {
			ev.Status, ev.Reply = clinic.StatusDuplicate, "Already returned: "+prev.Reply
			return nil
		}
	}
	ev.Status, ev.Reply, ev.Cost = clinic.StatusReturned, result.Result, Price(req, it, e.cfg.Prices)
	return nil
}
