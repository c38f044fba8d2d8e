// Package episode is the action-gated environment of one outpatient encounter:
// it gates the doctor's actions, enforces turn and test budgets, and answers
// through the patient simulator, the exam service and the consultant. Its state
// is the list of events so far, so an episode can be rebuilt from its trace.
package episode

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Env is one encounter of a profile in progress. Its state is its events:
// Restore rebuilds it from them without calling any role, so a retried
// activity continues exactly where it stopped.
type Env interface {
	// View is the doctor's whole input, built from revealed information only.
	View(cards []clinic.CardHint, rules []string) clinic.DoctorView
	// Step applies one doctor decision and returns its event. Role errors are
	// transient faults and leave the episode unchanged.
	Step(ctx context.Context, in StepInput) (clinic.Event, error)
	Done() bool
	Final() (clinic.FinalOutput, clinic.Termination)
	Events() []clinic.Event
	// Revealed is everything the doctor could have seen: what hallucination
	// checks compare evidence against.
	Revealed() string
}

// Rules are what a benchmark changes in the shared question-and-test
// environment (the benchmarks without an environment of their own play it).
type Rules struct {
	// Actions the doctor may take; anything else is an invalid turn.
	Actions []clinic.ActionKind
	// ShowCatalog puts the case's test list in the doctor's view (MedEvoEval
	// §3.2); Med-Inquire's doctor proposes tests by free text (EvoClinician §3).
	ShowCatalog bool
	// FinalFields are the fields a FINALIZE must fill.
	FinalFields []string
	// TestBudget enforces Emax on billable requests.
	TestBudget bool
	// FreeText charges a request that matches nothing in the cost table the
	// unknown-test price and answers NOT AVAILABLE (EvoClinician appendix).
	FreeText bool
	// Invent lets the patient answer beyond the record with details consistent
	// with the case, each cached by topic for the rest of the episode.
	Invent bool
}

// Offered are the rules' actions that a run with cfg offers the doctor:
// CALL_MDT only where a consultant answers, and FINALIZE alone in static
// mode, where the whole case is shown.
func (r Rules) Offered(cfg settings.Episode) []clinic.ActionKind {
	var out []clinic.ActionKind
	for _, a := range r.Actions {
		switch {
		case cfg.Mode == settings.Static && a != clinic.Finalize:
		case a == clinic.CallMDT && !cfg.MDTAllowed():
		default:
			out = append(out, a)
		}
	}
	return out
}

// Roles are the environment's simulated counterparts.
type Roles struct {
	Patient    Patient
	Exam       ExamService
	Consultant Consultant
	// Extra are the model-backed roles a benchmark adds (bench.Roles), by
	// name; a role missing here is the benchmark's built-in one.
	Extra map[string]any
}

// BuiltinRoles returns the deterministic built-in roles.
func BuiltinRoles() Roles {
	return Roles{Patient: BuiltinPatient{}, Exam: BuiltinExam{}, Consultant: BuiltinConsultant{}}
}

// ErrDone is returned by Step after the episode has ended.
var ErrDone = errors.New("episode: already ended")

// Episode is one encounter in progress.
type Episode struct {
	c     clinic.Case
	cfg   settings.Episode
	rules Rules
	roles Roles
	cat   *catalog.Catalog
	allow map[string]bool
	Log
}

var _ Env = (*Episode)(nil)

// New starts an episode; Restore rebuilds one from earlier events.
func New(c clinic.Case, cfg settings.Episode, rules Rules, roles Roles) *Episode {
	e := &Episode{c: c, cfg: cfg, rules: rules, roles: roles, cat: CaseCatalog(&c), allow: map[string]bool{}}
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
func Restore(c clinic.Case, cfg settings.Episode, rules Rules, roles Roles, events []clinic.Event) *Episode {
	e := New(c, cfg, rules, roles)
	for _, ev := range events {
		e.apply(ev)
	}
	return e
}

// Case returns the case being played; only the manager and the harness read it.
func (e *Episode) Case() clinic.Case { return e.c }

// maxTurns is Tmax, or 1 in static mode: the whole case is shown and the
// doctor finalises at once (MedEvoEval D.2's full-vignette baseline).
func (e *Episode) maxTurns() int {
	if e.cfg.Mode == settings.Static {
		return 1
	}
	return e.cfg.MaxTurns
}

// mdt reports whether CALL_MDT reaches a consultant.
func (e *Episode) mdt() bool {
	return e.cfg.MDTAllowed() && slices.Contains(e.rules.Actions, clinic.CallMDT)
}

// TestsUsed counts the billable requests charged to the test budget.
func (e *Episode) TestsUsed() int {
	n := 0
	for _, ev := range e.Seen() {
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

// View builds the doctor's input from revealed information only. In static
// mode everything the patient and exam views hold is revealed up front.
func (e *Episode) View(cards []clinic.CardHint, rules []string) clinic.DoctorView {
	v := clinic.DoctorView{
		Demographics:     e.c.Patient.Demographics,
		OpeningComplaint: e.c.Patient.OpeningComplaint,
		Cards:            cards,
		Rules:            rules,
		MDTAllowed:       e.mdt(),
		Turn:             e.Len(),
		MaxTurns:         e.maxTurns(),
		TestsUsed:        e.TestsUsed(),
		FinalFields:      e.rules.FinalFields,
	}
	for _, a := range e.rules.Offered(e.cfg) {
		v.Actions = append(v.Actions, string(a))
	}
	if e.rules.ShowCatalog {
		v.Catalog = e.c.Exam.Catalog
	}
	if e.rules.TestBudget {
		v.MaxTests = e.cfg.MaxTests
	}
	if e.cfg.Mode == settings.Static {
		v.Exchanges, v.Results = vignette(&e.c)
	}
	for _, ev := range e.Seen() {
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

// vignette is the whole case as the static mode shows it: the history as one
// exchange, the physical examination and every test result as results. The
// manager view is never part of it.
func vignette(c *clinic.Case) ([]clinic.Exchange, []clinic.Result) {
	var facts []string
	for _, f := range c.Patient.Facts {
		facts = append(facts, f.Text)
	}
	ex := []clinic.Exchange{{Question: "Full history", Answer: strings.Join(facts, " "), Answered: len(facts) > 0}}
	var rs []clinic.Result
	if text, ok := examResult(c, catalog.Item{Name: catalog.PhysicalKey, Category: catalog.Exam}); ok {
		rs = append(rs, clinic.Result{Test: catalog.PhysicalKey, Status: clinic.StatusReturned, Text: text})
	}
	for _, t := range c.Exam.Tests {
		rs = append(rs, clinic.Result{Test: t.Name, Status: clinic.StatusReturned, Text: t.Result})
	}
	return ex, rs
}

// Revealed is everything the doctor could have seen: demographics, the
// opening complaint, patient answers and returned results (and, in static
// mode, the whole vignette).
func (e *Episode) Revealed() string {
	parts := []string{e.c.Patient.Demographics.Text, e.c.Patient.OpeningComplaint}
	if e.cfg.Mode == settings.Static {
		ex, rs := vignette(&e.c)
		for _, x := range ex {
			parts = append(parts, x.Answer)
		}
		for _, r := range rs {
			parts = append(parts, r.Text)
		}
	}
	for _, ev := range e.Seen() {
		if ev.Status == clinic.StatusReturned && (ev.Action == clinic.Ask || ev.Action == clinic.RequestTest) {
			parts = append(parts, ev.Reply)
		}
	}
	return strings.Join(parts, "\n")
}

// StepInput is one doctor decision with what the harness knows about it.
type StepInput struct {
	Output         clinic.DoctorOutput
	RetrievedCards []string // memory cards shown to the doctor this turn
	PrunedCards    []string // memory cards a refine step removed before this turn's retrieval
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
	ev := clinic.Event{Turn: e.Len(), Action: out.Action, Question: out.Question, Topic: out.Topic,
		RetrievedCards: in.RetrievedCards, PrunedCards: in.PrunedCards, Rationale: out.Rationale, WorkingDiagnoses: out.WorkingDiagnoses,
		LLMError: in.LLMError, Cost: e.cfg.BaseTurnCost}
	switch {
	case in.LLMError:
		ev.Status = clinic.StatusUnparseable
	case !slices.Contains(e.rules.Actions, out.Action):
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("unknown action %q; use one of %s", out.Action, actionList(e.rules.Actions))
	case e.cfg.Mode == settings.Static && out.Action != clinic.Finalize:
		ev.Status = clinic.StatusInvalid
		ev.Reply = "the whole case is shown; the only action is FINALIZE"
	case out.Action == clinic.Ask:
		if err := e.ask(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == clinic.RequestTest:
		if err := e.test(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == clinic.CallMDT:
		if !e.mdt() {
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
		if missing := missingFinal(out, e.rules.FinalFields); missing != "" {
			ev.Status = clinic.StatusInvalid
			ev.Reply = "FINALIZE needs " + strings.Join(e.rules.FinalFields, ", ") + "; missing " + missing
			break
		}
		ev.Status = clinic.StatusFinalized
		ev.Final = &clinic.FinalOutput{Diagnosis: out.Diagnosis, Evidence: out.Evidence, Plan: out.Plan, Followup: out.Followup}
	}
	e.apply(ev)
	return e.Latest(), nil
}

// apply records an event and derives the episode's end from it.
func (e *Episode) apply(ev clinic.Event) {
	if !e.Record(ev) && e.Len() >= e.maxTurns() {
		// Forced finalisation from the latest working diagnosis, recorded on the
		// event so that Restore derives the same end.
		e.ForceEnd(&clinic.FinalOutput{Diagnosis: e.latestWorking(), Forced: true})
	}
}

func (e *Episode) latestWorking() []string {
	events := e.Seen()
	for i := len(events) - 1; i >= 0; i-- {
		if len(events[i].WorkingDiagnoses) > 0 {
			return events[i].WorkingDiagnoses
		}
	}
	return nil
}

func missingFinal(o clinic.DoctorOutput, fields []string) string {
	var m []string
	for _, f := range fields {
		var v []string
		switch f {
		case "diagnosis":
			v = o.Diagnosis
		case "evidence":
			v = o.Evidence
		case "plan":
			v = o.Plan
		case "followup":
			v = o.Followup
		}
		if len(textmatch.NonBlank(v)) == 0 {
			m = append(m, f)
		}
	}
	return strings.Join(m, ", ")
}

func actionList(as []clinic.ActionKind) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return strings.Join(out, ", ")
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
	for _, prev := range e.Seen() {
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
	query := PatientQuery{View: e.c.Patient, Question: q, Topic: out.Topic, Revealed: revealed, Held: held}
	if e.rules.Invent {
		topics := QuestionTopics(q)
		if out.Topic != "" && !slices.Contains(topics, out.Topic) {
			topics = append(topics, out.Topic)
		}
		query.Invent, query.Generated = true, e.generated()
		// A question whose every topic already has a detail beyond the record
		// gets that detail again: rephrasing cannot change the patient's story.
		if cached, ok := cachedDetail(query.Generated, topics); ok {
			ev.Status, ev.Reply, ev.Unanswered, ev.Generated, ev.Cached, ev.Topics = clinic.StatusReturned, cached, AnsweredNone, true, true, topics
			return nil
		}
		defer func() {
			if ev.Generated {
				ev.Topics = topics
			}
		}()
	}
	rep, err := e.roles.Patient.Answer(ctx, query)
	if err != nil {
		return fmt.Errorf("patient: %w", err)
	}
	ev.Status, ev.Reply, ev.RevealedFacts, ev.HeldFacts, ev.Unanswered = clinic.StatusReturned, rep.Text, rep.FactIDs, rep.Held, rep.Unanswered
	ev.LLMError = ev.LLMError || rep.LLMError
	ev.Generated = rep.Generated && !rep.LLMError
	return nil
}

// generated is the episode's cache of details beyond the record, by topic,
// rebuilt from its events (so it survives a crash with them).
func (e *Episode) generated() map[string]string {
	out := map[string]string{}
	for _, ev := range e.Seen() {
		if ev.Generated {
			for _, t := range ev.Topics {
				if _, ok := out[t]; !ok {
					out[t] = ev.Reply
				}
			}
		}
	}
	return out
}

func cachedDetail(gen map[string]string, topics []string) (string, bool) {
	if len(topics) == 0 {
		return "", false
	}
	first, ok := gen[topics[0]]
	for _, t := range topics[1:] {
		if gen[t] != first {
			return "", false
		}
	}
	return first, ok
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
		if e.rules.FreeText {
			// Med-Inquire (EvoClinician appendix): a request the cost table does not
			// know pays the fixed default price and is NOT AVAILABLE.
			ev.Reply = "NOT AVAILABLE"
			ev.Cost += e.cfg.UnknownTestPrice
		}
		return e.chargeable(ev)
	}
	ev.Test, ev.Free = it.Name, it.Free()
	if !e.allow[it.Name] && e.rules.FreeText {
		// Med-Inquire: any test of the cost table may be ordered and is paid
		// for; one outside this case's record is NOT AVAILABLE.
		if err := e.chargeable(ev); err != nil || ev.Status == clinic.StatusOverBudget {
			return err
		}
		ev.Status, ev.Reply = clinic.StatusUnavailable, "NOT AVAILABLE"
		ev.Cost += catalog.Price(it, e.cfg.Prices)
		return nil
	}
	if !e.allow[it.Name] {
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("%q is not available in this setting", it.Name)
		return nil
	}
	for _, prev := range e.Seen() {
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
		if e.rules.FreeText {
			// Med-Inquire: the ordered test is paid for; the case records no result.
			ev.Reply = "NOT AVAILABLE"
			ev.Cost += catalog.Price(it, e.cfg.Prices)
		}
		return nil
	}
	ev.Status, ev.Reply = clinic.StatusReturned, text
	ev.Cost += catalog.Price(it, e.cfg.Prices)
	return nil
}

// chargeable refuses a billable request once the test budget is spent.
func (e *Episode) chargeable(ev *clinic.Event) error {
	if e.rules.TestBudget && !ev.Free && e.TestsUsed() >= e.cfg.MaxTests {
		ev.Status = clinic.StatusOverBudget
		ev.Reply = fmt.Sprintf("test budget of %d spent; request refused", e.cfg.MaxTests)
	}
	return nil
}
