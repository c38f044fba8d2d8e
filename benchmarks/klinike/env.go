package klinike

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// Uncapped is the step limit of a run without a step cap (episode.max_steps
// 0): a bound so that an agent that never records a diagnosis still ends.
// KlinikeBench bounds its uncapped runs by wall time instead (appendix C:
// 15 minutes per rollout).
const Uncapped = 200

// Phases the doctor's view names.
const (
	// PhaseEncounter: question the patient and call tools.
	PhaseEncounter = "encounter"
	// PhaseRecord: the step budget is spent; the only action is record_diagnosis
	// (KlinikeBench §2.2: the agent is prompted to record a diagnosis when the
	// turn limit is reached).
	PhaseRecord = "record_diagnosis"
	// PhaseChart: the chart mode's one turn, the whole intake shown.
	PhaseChart = "chart"
)

// Env is one KlinikeBench encounter in progress. Its state is its events.
type Env struct {
	c       clinic.Case
	sb      *Sandbox // the case's, nil for none
	cfg     settings.Episode
	budget  Budget
	roles   episode.Roles
	patient *episode.Episode // the patient side, fed the ASK events only
	calls   []CallFields     // each event's call, read once (the zero call for a question)
	episode.Log
}

var _ episode.Env = (*Env)(nil)

// Restore starts an encounter of c, or rebuilds one from its events without
// calling any role. The error is a budget of the wrong type or a sandbox
// that does not decode (settings or a case that did not pass validation).
func Restore(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (*Env, error) {
	budget, err := BudgetOf(s)
	if err != nil {
		return nil, err
	}
	sb, err := SandboxOf(&c)
	if err != nil {
		return nil, err
	}
	// The patient side reuses the shared environment's questioning (answer
	// cache, revealed and held facts) with no budget of its own: this
	// environment counts the patient turns.
	inner := settings.Episode{MaxTurns: math.MaxInt32, Mode: settings.Interactive, MDT: settings.MDTOff}
	var asks []clinic.Event
	for _, ev := range events {
		// The questions the patient side saw: answered ones, and empty ones it
		// refused (an unparseable doctor reply never reached it).
		if ev.Action == clinic.Ask && (ev.Status == clinic.StatusReturned || (ev.Status == clinic.StatusUnparseable && !ev.LLMError)) {
			asks = append(asks, ev)
		}
	}
	e := &Env{c: c, sb: sb, cfg: s.Episode, budget: budget, roles: roles,
		patient: episode.Restore(c, inner, episode.Rules{Actions: []clinic.ActionKind{clinic.Ask}}, roles, asks)}
	for _, ev := range events {
		e.apply(ev)
	}
	return e, nil
}

// cap is the step budget: episode.max_steps (Budget), Uncapped for 0, and 0
// in the chart mode, whose one turn is the closing one.
func (e *Env) cap() int {
	switch {
	case e.cfg.Mode == settings.Static:
		return 0
	case e.budget.MaxSteps == 0:
		return Uncapped
	}
	return e.budget.MaxSteps
}

// closing reports whether the step budget is spent: only record_diagnosis remains.
func (e *Env) closing() bool { return e.Len() >= e.cap() }

// PatientTurns counts the questions the patient answered.
func PatientTurns(events []clinic.Event) int {
	n := 0
	for _, ev := range events {
		if ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned {
			n++
		}
	}
	return n
}

// patientTurnsLeft is the patient-turn budget left; -1 without a cap.
func (e *Env) patientTurnsLeft() int {
	if e.budget.MaxPatientTurns == 0 {
		return -1
	}
	return max(0, e.budget.MaxPatientTurns-PatientTurns(e.Seen()))
}

// exposed are the tool names the task exposes, in registry order.
func (e *Env) exposed() []string {
	if e.sb == nil {
		return []string{sandbox.RecordDiagnosis}
	}
	var out []string
	for _, n := range sandbox.Names() {
		if slices.Contains(e.sb.Tools, n) && !slices.Contains(e.sb.Forbidden, n) {
			out = append(out, n)
		}
	}
	return out
}

// actions are the actions allowed this turn.
func (e *Env) actions() []clinic.ActionKind {
	if e.closing() || e.patientTurnsLeft() == 0 {
		return []clinic.ActionKind{ToolCall}
	}
	return []clinic.ActionKind{clinic.Ask, ToolCall}
}

// callable are the tools the doctor may call this turn.
func (e *Env) callable() []string {
	if e.closing() {
		return []string{sandbox.RecordDiagnosis}
	}
	return e.exposed()
}

// View is the doctor's input: the briefing, the conversation, the calls made
// and what came back (refusals with their reasons included), the tools it may
// call now and its budgets. In the chart mode the intake is shown whole.
func (e *Env) View(cards []clinic.CardHint, rules []string) clinic.DoctorView {
	v := clinic.DoctorView{Demographics: e.c.Patient.Demographics, OpeningComplaint: e.c.Patient.OpeningComplaint,
		Cards: cards, Rules: rules, Turn: e.Len(), MaxTurns: e.cap() + 1}
	kv := View{Phase: PhaseEncounter}
	for _, a := range e.actions() {
		v.Actions = append(v.Actions, string(a))
	}
	for _, n := range e.callable() {
		t, _ := sandbox.Lookup(n) // exposed names are registered (ValidateCase)
		kv.Tools = append(kv.Tools, ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	switch {
	case e.cfg.Mode == settings.Static:
		kv.Phase = PhaseChart
		v.Exchanges = chart(&e.c, e.sb)
	case e.closing():
		kv.Phase = PhaseRecord
	default:
		kv.StepsLeft = e.cap() - e.Len()
		kv.PatientTurnsLeft = max(0, e.patientTurnsLeft())
	}
	for i, ev := range e.Seen() {
		switch ev.Action {
		case clinic.Ask:
			if ev.Status == clinic.StatusReturned {
				v.Exchanges = append(v.Exchanges, clinic.Exchange{Question: ev.Question, Topic: ev.Topic, Answer: ev.Reply, Answered: len(ev.RevealedFacts) > 0})
			}
		case ToolCall:
			kv.ToolResults = append(kv.ToolResults, ToolResult{Tool: e.calls[i].Tool, Arguments: e.calls[i].Arguments, Status: ev.Status, Text: ev.Reply})
		}
	}
	v.Ext = kv
	return v
}

// chart is the chart mode's intake snapshot: the whole history as the
// patient would tell it (present and denied findings), and the chart's
// medicines and allergies (KlinikeBench §4: chief complaint, demographics,
// severity, duration, history, medications, allergies and family history).
// Examination findings and test results are not part of it.
func chart(c *clinic.Case, sb *Sandbox) []clinic.Exchange {
	var facts []string
	for _, f := range c.Patient.Facts {
		facts = append(facts, f.Text)
	}
	out := []clinic.Exchange{{Question: "History", Answer: strings.Join(facts, " "), Answered: len(facts) > 0}}
	if sb != nil {
		if len(sb.Record.Medications) > 0 {
			out = append(out, clinic.Exchange{Question: "Medications on the chart", Answer: strings.Join(sb.Record.Medications, "; "), Answered: true})
		}
		if len(sb.Record.Allergies) > 0 {
			out = append(out, clinic.Exchange{Question: "Allergies on the chart", Answer: strings.Join(sb.Record.Allergies, "; "), Answered: true})
		}
	}
	return out
}

// Revealed is everything the doctor could have seen.
func (e *Env) Revealed() string {
	parts := []string{e.c.Patient.Demographics.Text, e.c.Patient.OpeningComplaint}
	if e.cfg.Mode == settings.Static {
		for _, x := range chart(&e.c, e.sb) {
			parts = append(parts, x.Answer)
		}
	}
	for _, ev := range e.Seen() {
		if ev.Status == clinic.StatusReturned && (ev.Action == clinic.Ask || ev.Action == ToolCall) {
			parts = append(parts, ev.Reply)
		}
	}
	return strings.Join(parts, "\n")
}

// Step applies one doctor decision. A call the sandbox refuses (an unknown,
// unexposed or forbidden tool, arguments that break the schema) is an invalid
// step whose reason goes back to the doctor; only a role's transient fault is
// an error, and it leaves the encounter unchanged.
func (e *Env) Step(ctx context.Context, in episode.StepInput) (clinic.Event, error) {
	if e.Done() {
		return clinic.Event{}, episode.ErrDone
	}
	out := in.Output
	ev := clinic.Event{Turn: e.Len(), Action: out.Action, Question: out.Question, Topic: out.Topic,
		RetrievedCards: in.RetrievedCards, PrunedCards: in.PrunedCards, Rationale: out.Rationale, WorkingDiagnoses: out.WorkingDiagnoses, LLMError: in.LLMError}
	allowed := e.actions()
	switch {
	case in.LLMError:
		ev.Status = clinic.StatusUnparseable
	case out.Action == clinic.Ask && e.closing():
		ev.Status = clinic.StatusInvalid
		ev.Reply = "the step budget is spent: record your diagnosis with record_diagnosis"
	case out.Action == clinic.Ask && e.patientTurnsLeft() == 0:
		ev.Status = clinic.StatusOverBudget
		ev.Reply = fmt.Sprintf("the %d patient turns are spent; the patient answers no more questions", e.budget.MaxPatientTurns)
	case !slices.Contains(allowed, out.Action):
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("unknown action %q; use one of %s", out.Action, actionList(allowed))
	case out.Action == clinic.Ask:
		if err := e.ask(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	default:
		if err := e.call(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	}
	e.apply(ev)
	return e.Latest(), nil
}

func (e *Env) ask(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	got, err := e.patient.Step(ctx, episode.StepInput{Output: clinic.DoctorOutput{Action: clinic.Ask, Question: out.Question,
		Utterance: out.Utterance, Topic: out.Topic}})
	if err != nil {
		return err
	}
	ev.Question, ev.Status, ev.Reply, ev.Unanswered, ev.Cached = got.Question, got.Status, got.Reply, got.Unanswered, got.Cached
	ev.RevealedFacts, ev.HeldFacts, ev.LLMError = got.RevealedFacts, got.HeldFacts, ev.LLMError || got.LLMError
	return nil
}

func (e *Env) call(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	asked := CallOf(out.Ext)
	c := CallFields{Tool: strings.TrimSpace(asked.Tool), Arguments: asked.Arguments}
	defer func() { ev.Ext = WithCall(ev.Ext, c) }()
	var forbidden []string
	var rec sandbox.Record
	if e.sb != nil {
		forbidden, rec = e.sb.Forbidden, e.sb.Record
	}
	t, known := sandbox.Lookup(c.Tool)
	switch {
	case c.Tool == "":
		ev.Status, ev.Reply = clinic.StatusInvalid, "TOOL_CALL needs a tool"
		return nil
	case slices.Contains(forbidden, c.Tool):
		ev.Status, ev.Reply = clinic.StatusInvalid, fmt.Sprintf("%s is forbidden in this encounter", c.Tool)
		return nil
	case e.closing() && c.Tool != sandbox.RecordDiagnosis:
		ev.Status, ev.Reply = clinic.StatusInvalid, "the step budget is spent: record your diagnosis with record_diagnosis"
		return nil
	case !known || !slices.Contains(e.exposed(), c.Tool):
		ev.Status, ev.Reply = clinic.StatusInvalid, fmt.Sprintf("tool %q is not available; the tools are %s", c.Tool, strings.Join(e.callable(), ", "))
		return nil
	}
	args, err := t.Validate(asked.Arguments)
	if err != nil {
		ev.Status, ev.Reply = clinic.StatusInvalid, err.Error()
		return nil
	}
	c.Arguments = args.Canonical()
	res, err := sandbox.Execute(ctx, &e.c, rec, e.roles.Exam, e.cfg.Prices, t, args)
	if err != nil {
		return err
	}
	ev.Status, ev.Reply, ev.Cost, ev.Final = res.Status, res.Text, res.Cost, res.Final
	return nil
}

// apply records an event and derives the end: a recorded diagnosis, or a
// closing turn that recorded none. The forced end is written on the event,
// so Restore derives the same end.
func (e *Env) apply(ev clinic.Event) {
	var c CallFields
	if ev.Action == ToolCall {
		c = CallOf(ev.Ext)
	}
	e.calls = append(e.calls, c)
	if !e.Record(ev) && e.Len() > e.cap() {
		// No diagnosis was recorded, not even when told to: none is made up.
		e.ForceEnd(&clinic.FinalOutput{Forced: true})
	}
}

func actionList(as []clinic.ActionKind) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return strings.Join(out, ", ")
}
