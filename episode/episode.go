// Package episode is the action-gated environment of one outpatient encounter:
// it gates the doctor's actions, enforces turn and test budgets, and answers
// through the patient simulator, the exam service and the consultant. Its state
// is the list of events so far, so an episode can be rebuilt from its trace.
package episode

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Config holds the environment's budgets and prices.
type Config struct {
	MaxTurns     int                          // Tmax: turns including the final one
	MaxTests     int                          // Emax: billable test requests
	AllowMDT     bool                         // whether CALL_MDT is available
	BaseTurnCost float64                      // USD per turn
	Prices       map[catalog.Category]float64 // nil: catalog.Prices
}

// DefaultConfig returns Tmax 10, Emax 3, MDT on, 5 USD per turn.
func DefaultConfig() Config {
	return Config{MaxTurns: 10, MaxTests: 3, AllowMDT: true, BaseTurnCost: 5}
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.MaxTurns < 1:
		return fmt.Errorf("episode config: max_turns must be at least 1, got %d", c.MaxTurns)
	case c.MaxTests < 0:
		return fmt.Errorf("episode config: max_tests must not be negative, got %d", c.MaxTests)
	case c.BaseTurnCost < 0:
		return fmt.Errorf("episode config: base_turn_cost must not be negative, got %g", c.BaseTurnCost)
	}
	return nil
}

// Roles are the environment's simulated counterparts.
type Roles struct {
	Patient    Patient
	Exam       ExamService
	Consultant Consultant
}

// BuiltinRoles returns the deterministic built-in roles.
func BuiltinRoles() Roles {
	return Roles{Patient: BuiltinPatient{}, Exam: BuiltinExam{}, Consultant: BuiltinConsultant{}}
}

// ErrDone is returned by Step after the episode has ended.
var ErrDone = errors.New("episode: already ended")

// Episode is one encounter in progress.
type Episode struct {
	c      clinic.Case
	cfg    Config
	roles  Roles
	cat    *catalog.Catalog
	allow  map[string]bool
	events []clinic.Event
	final  *clinic.FinalOutput
	end    clinic.Termination
}

// New starts an episode; Restore rebuilds one from earlier events.
func New(c clinic.Case, cfg Config, roles Roles) *Episode {
	e := &Episode{c: c, cfg: cfg, roles: roles, cat: CaseCatalog(&c), allow: map[string]bool{}}
	for _, n := range c.Exam.Catalog {
		if it, m := e.cat.Lookup(n); m != catalog.MatchNone {
			e.allow[it.Name] = true
		}
	}
	for _, it := range e.cat.Items() {
		if it.Free() {
			e.allow[it.Name] = true // the physical examination is always allowed
		}
	}
	return e
}

// Restore rebuilds an episode from the events of its earlier turns without
// calling any role, so a retried activity continues exactly where it stopped.
func Restore(c clinic.Case, cfg Config, roles Roles, events []clinic.Event) *Episode {
	e := New(c, cfg, roles)
	for _, ev := range events {
		e.apply(ev)
	}
	return e
}

// Events returns the events so far.
func (e *Episode) Events() []clinic.Event { return append([]clinic.Event(nil), e.events...) }

// Done reports whether the episode has ended.
func (e *Episode) Done() bool { return e.end != "" }

// Final returns the final output and how the episode ended.
func (e *Episode) Final() (clinic.FinalOutput, clinic.Termination) {
	if e.final == nil {
		return clinic.FinalOutput{}, e.end
	}
	return *e.final, e.end
}

// Case returns the case being played; only the manager and the harness read it.
func (e *Episode) Case() clinic.Case { return e.c }

// Config returns the environment configuration.
func (e *Episode) Config() Config { return e.cfg }

// TestsUsed counts the billable requests charged to the test budget.
func (e *Episode) TestsUsed() int {
	n := 0
	for _, ev := range e.events {
		if billable(ev) {
			n++
		}
	}
	return n
}

// billable says whether an event used one unit of the test budget.
func billable(ev clinic.Event) bool {
	if ev.Action != clinic.RequestTest {
		return false
	}
	switch ev.Status {
	case clinic.StatusOverBudget, clinic.StatusInvalid:
		return false
	}
	return !ev.Free
}

// View builds the doctor's input from revealed information only.
func (e *Episode) View(cards []clinic.CardHint, rules []string) clinic.DoctorView {
	v := clinic.DoctorView{
		Demographics:     e.c.Patient.Demographics,
		OpeningComplaint: e.c.Patient.OpeningComplaint,
		Cards:            cards,
		Rules:            rules,
		Catalog:          e.c.Exam.Catalog,
		MDTAllowed:       e.cfg.AllowMDT,
		Turn:             len(e.events),
		MaxTurns:         e.cfg.MaxTurns,
		TestsUsed:        e.TestsUsed(),
		MaxTests:         e.cfg.MaxTests,
	}
	for _, ev := range e.events {
		switch ev.Action {
		case clinic.Ask:
			if ev.Status == clinic.StatusReturned {
				v.Exchanges = append(v.Exchanges, clinic.Exchange{Question: ev.Question, Topic: ev.Topic, Answer: ev.Reply, Answered: len(ev.RevealedFacts) > 0})
			}
		case clinic.RequestTest:
			v.Results = append(v.Results, clinic.Result{Test: ev.Test, Status: ev.Status, Text: ev.Reply})
		case clinic.CallMDT:
			if ev.Status == clinic.StatusReturned {
				v.ConsultNotes = append(v.ConsultNotes, ev.Reply)
			}
		}
	}
	return v
}

// StepInput is one doctor decision with what the harness knows about it.
type StepInput struct {
	Output         clinic.DoctorOutput
	RetrievedCards []string // memory cards shown to the doctor this turn
	LLMError       bool     // the doctor's reply could not be parsed even after repair
}

// Step applies one doctor action and returns its event. Role errors are
// returned as they are (they are transient faults of model-backed roles) and
// leave the episode unchanged.
func (e *Episode) Step(ctx context.Context, in StepInput) (clinic.Event, error) {
	if e.Done() {
		return clinic.Event{}, ErrDone
	}
	out := in.Output
	ev := clinic.Event{Turn: len(e.events), Action: out.Action, Question: out.Question, Topic: out.Topic,
		RetrievedCards: in.RetrievedCards, Rationale: out.Rationale, WorkingDiagnoses: out.WorkingDiagnoses,
		LLMError: in.LLMError, Cost: e.cfg.BaseTurnCost}
	switch {
	case in.LLMError:
		ev.Status = clinic.StatusUnparseable
	case !out.Action.Valid():
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("unknown action %q; use ASK, REQUEST_TEST, CALL_MDT or FINALIZE", out.Action)
	case out.Action == clinic.Ask:
		if err := e.ask(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == clinic.RequestTest:
		if err := e.test(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == clinic.CallMDT:
		if !e.cfg.AllowMDT {
			ev.Status = clinic.StatusInvalid
			ev.ConsultantStatus = "disabled"
			ev.Reply = "the consultant is not available in this configuration"
			break
		}
		note, err := e.roles.Consultant.Advise(ctx, e.View(nil, nil), out.Question)
		if err != nil {
			return clinic.Event{}, fmt.Errorf("consultant: %w", err)
		}
		ev.Status, ev.ConsultantStatus, ev.Reply = clinic.StatusReturned, "answered", note
	case out.Action == clinic.Finalize:
		if missing := missingFinal(out); missing != "" {
			ev.Status = clinic.StatusInvalid
			ev.Reply = "FINALIZE needs diagnosis, evidence, plan and followup; missing " + missing
			break
		}
		ev.Status = clinic.StatusFinalized
		ev.Final = &clinic.FinalOutput{Diagnosis: out.Diagnosis, Evidence: out.Evidence, Plan: out.Plan, Followup: out.Followup}
	}
	e.apply(ev)
	return e.events[len(e.events)-1], nil
}

// apply records an event and derives the episode's end from it.
func (e *Episode) apply(ev clinic.Event) {
	e.events = append(e.events, ev)
	switch {
	case ev.Status == clinic.StatusFinalized:
		e.final, e.end = ev.Final, clinic.EndFinalized
	case ev.ForcedFinal != nil:
		e.final, e.end = ev.ForcedFinal, clinic.EndTurnLimit
	case len(e.events) >= e.cfg.MaxTurns:
		// Forced finalisation from the latest working diagnosis, recorded on the
		// event so that Restore derives the same end.
		f := &clinic.FinalOutput{Diagnosis: e.latestWorking(), Forced: true}
		e.events[len(e.events)-1].ForcedFinal = f
		e.final, e.end = f, clinic.EndTurnLimit
	}
}

func (e *Episode) latestWorking() []string {
	for i := len(e.events) - 1; i >= 0; i-- {
		if len(e.events[i].WorkingDiagnoses) > 0 {
			return e.events[i].WorkingDiagnoses
		}
	}
	return nil
}

func missingFinal(o clinic.DoctorOutput) string {
	var m []string
	for _, f := range []struct {
		name string
		v    []string
	}{{"diagnosis", o.Diagnosis}, {"evidence", o.Evidence}, {"plan", o.Plan}, {"followup", o.Followup}} {
		if len(nonEmpty(f.v)) == 0 {
			m = append(m, f.name)
		}
	}
	return strings.Join(m, ", ")
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			out = append(out, x)
		}
	}
	return out
}

func (e *Episode) ask(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	q := strings.TrimSpace(out.Question)
	if q == "" {
		q = strings.TrimSpace(out.Utterance)
		ev.Question = q
	}
	if q == "" {
		ev.Status = clinic.StatusUnparseable
		ev.Reply = "ASK needs a question"
		return nil
	}
	revealed, held := map[string]bool{}, map[string]bool{}
	key := textmatch.Normalize(q)
	for _, prev := range e.events {
		for _, id := range prev.RevealedFacts {
			revealed[id] = true
		}
		for _, id := range prev.HeldFacts {
			held[id] = true
		}
		// Answers are cached per episode: the same question gets the same answer.
		if prev.Action == clinic.Ask && prev.Status == clinic.StatusReturned && textmatch.Normalize(prev.Question) == key {
			ev.Status, ev.Reply, ev.Unanswered = clinic.StatusReturned, prev.Reply, prev.Unanswered
			ev.RevealedFacts = prev.RevealedFacts
			ev.Cached = true
			return nil
		}
	}
	rep, err := e.roles.Patient.Answer(ctx, PatientQuery{View: e.c.Patient, Question: q, Topic: out.Topic, Revealed: revealed, Held: held})
	if err != nil {
		return fmt.Errorf("patient: %w", err)
	}
	ev.Status, ev.Reply, ev.RevealedFacts, ev.HeldFacts, ev.Unanswered = clinic.StatusReturned, rep.Text, rep.FactIDs, rep.Held, rep.Unanswered
	ev.LLMError = ev.LLMError || rep.LLMError
	return nil
}

func (e *Episode) test(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	req := strings.TrimSpace(out.TestName)
	ev.Test = req
	if req == "" {
		ev.Status = clinic.StatusUnparseable
		ev.Reply = "REQUEST_TEST needs a test_name"
		return e.chargeable(ev)
	}
	it, match, err := e.roles.Exam.Resolve(ctx, req, e.cat)
	if err != nil {
		return fmt.Errorf("exam service: %w", err)
	}
	if match == catalog.MatchNone {
		ev.Status = clinic.StatusUnavailable
		ev.Reply = fmt.Sprintf("%q is not in the test catalog", req)
		return e.chargeable(ev)
	}
	ev.Test, ev.Free = it.Name, it.Free()
	if !e.allow[it.Name] {
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("%q is not available in this setting", it.Name)
		return nil
	}
	for _, prev := range e.events {
		if prev.Action == clinic.RequestTest && prev.Test == it.Name && prev.Status == clinic.StatusReturned {
			ev.Status = clinic.StatusDuplicate
			ev.Reply = "already returned: " + prev.Reply
			return e.chargeable(ev)
		}
	}
	if err := e.chargeable(ev); err != nil || ev.Status == clinic.StatusOverBudget {
		return err
	}
	text, ok := examResult(&e.c, it)
	if !ok {
		ev.Status = clinic.StatusUnavailable
		ev.Reply = fmt.Sprintf("no %s result is available for this patient", it.Name)
		return nil
	}
	ev.Status, ev.Reply = clinic.StatusReturned, text
	ev.Cost += catalog.Price(it, e.cfg.Prices)
	return nil
}

// chargeable refuses a billable request once the test budget is spent.
func (e *Episode) chargeable(ev *clinic.Event) error {
	if !ev.Free && e.TestsUsed() >= e.cfg.MaxTests {
		ev.Status = clinic.StatusOverBudget
		ev.Reply = fmt.Sprintf("test budget of %d spent; request refused", e.cfg.MaxTests)
	}
	return nil
}
