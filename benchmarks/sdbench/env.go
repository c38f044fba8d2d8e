package sdbench

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

// Actions are the encounter's three (Nori et al. 2025, §2): ask questions,
// request diagnostic tests, and diagnose.
var Actions = []clinic.ActionKind{clinic.Ask, clinic.RequestTest, clinic.Finalize}

// Env is one sequential-diagnosis encounter in progress. Its state is its
// events: every answer and every result, synthetic ones included, is on
// them, so Start rebuilds the encounter, and its caches, from them without
// calling the gatekeeper.
type Env struct {
	c     clinic.Case
	cfg   settings.Episode
	sd    Episode
	gk    Gatekeeper
	exam  episode.ExamService
	cat   *catalog.Catalog
	turns []Turn // the events' own fields, decoded once per event
	episode.Log
}

var _ episode.Env = (*Env)(nil)

// Start begins an encounter of c, or rebuilds one from its events; the
// error names a benchmark key of the wrong type.
func Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (*Env, error) {
	sd, err := EpisodeOf(s)
	if err != nil {
		return nil, err
	}
	exam := roles.Exam
	if exam == nil {
		exam = episode.BuiltinExam{}
	}
	e := &Env{c: c, cfg: s.Episode, sd: sd, gk: gatekeeperOf(roles), exam: exam, cat: episode.CaseCatalog(&c)}
	for _, ev := range events {
		e.apply(ev)
	}
	return e, nil
}

// Spent is the cumulative cost of the encounter so far.
func (e *Env) Spent() float64 {
	sum := 0.0
	for _, ev := range e.Seen() {
		sum += ev.Cost
	}
	return round(sum)
}

// visitOpen reports whether a physician visit is under way: one began and
// no diagnostic test has been ordered since (§3).
func (e *Env) visitOpen() bool {
	open := false
	for _, t := range e.turns {
		switch {
		case t.ClosesVisit:
			open = false
		case t.OpensVisit:
			open = true
		}
	}
	return open
}

// orders are every order so far, in order.
func (e *Env) orders() []Order {
	var out []Order
	for _, t := range e.turns {
		out = append(out, t.Orders...)
	}
	return out
}

// TestsDone counts the billable tests performed.
func (e *Env) TestsDone() int {
	n := 0
	for _, o := range e.orders() {
		if o.Status == clinic.StatusReturned && !o.Exam {
			n++
		}
	}
	return n
}

// View is the doctor's input: the abstract, every answer and result so far
// (a refused order with its reason), the spending and what the next visit
// costs, and for the budgeted variant the budget and the quotes. It shows no
// test cap: SDBench has none.
func (e *Env) View(cards []clinic.CardHint, rules []string) clinic.DoctorView {
	v := clinic.DoctorView{Demographics: e.c.Patient.Demographics, OpeningComplaint: e.c.Patient.OpeningComplaint,
		Cards: cards, Rules: rules, Turn: e.Len(), MaxTurns: e.cfg.MaxTurns, TestsUsed: e.TestsDone(), FinalFields: []string{"diagnosis"}}
	for _, a := range e.sd.actions() {
		v.Actions = append(v.Actions, string(a))
	}
	ext := View{SpentUSD: e.Spent(), VisitCost: e.sd.VisitCost, VisitOpen: e.visitOpen(), Variant: e.sd.Variant, CostCap: e.sd.CostCap}
	if e.sd.Variant == Ensemble {
		ext.Panels = e.sd.Panels
	}
	quoted := map[string]Quote{}
	var quoteOrder []string
	for i, ev := range e.Seen() {
		t := e.turns[i]
		switch ev.Action {
		case clinic.Ask:
			v.Exchanges = append(v.Exchanges, exchanges(ev, t)...)
		case clinic.RequestTest:
			for _, o := range t.Orders {
				switch o.Status {
				case Quoted:
					if _, ok := quoted[o.Test]; !ok {
						quoteOrder = append(quoteOrder, o.Test)
					}
					quoted[o.Test] = Quote{Test: o.Test, USD: o.Price}
					continue // a quote is not a result: it is listed with the quotes
				case clinic.StatusReturned, clinic.StatusOverBudget:
					delete(quoted, o.Test) // done, or refused: the quote is spent
				}
				v.Results = append(v.Results, clinic.Result{Test: o.Test, Status: o.Status, Text: o.Result})
			}
			if len(t.Orders) == 0 {
				v.Results = append(v.Results, clinic.Result{Test: ev.Test, Status: ev.Status, Text: ev.Reply})
			}
		}
	}
	for _, n := range quoteOrder {
		if q, ok := quoted[n]; ok {
			ext.Quotes = append(ext.Quotes, q)
		}
	}
	v.Ext = ext
	return v
}

// exchanges are a question turn's exchanges as the view shows them: each
// answer, a refusal with its words, a turn refused whole with its reason.
func exchanges(ev clinic.Event, t Turn) []clinic.Exchange {
	var out []clinic.Exchange
	for _, a := range t.Answers {
		x := clinic.Exchange{Question: a.Question, Answer: a.Reply, Answered: len(a.Facts) > 0 || a.Generated}
		if len(t.Answers) == 1 {
			x.Topic = ev.Topic
		}
		out = append(out, x)
	}
	if len(t.Answers) == 0 && ev.Reply != "" {
		out = append(out, clinic.Exchange{Question: ev.Question, Answer: ev.Reply})
	}
	return out
}

// Revealed is everything the doctor has been told.
func (e *Env) Revealed() string {
	parts := []string{e.c.Patient.Demographics.Text, e.c.Patient.OpeningComplaint}
	for i := range e.Seen() {
		for _, a := range e.turns[i].Answers {
			parts = append(parts, a.Reply)
		}
		for _, o := range e.turns[i].Orders {
			if o.Status == clinic.StatusReturned || o.Status == clinic.StatusDuplicate {
				parts = append(parts, o.Result)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// Step applies one doctor turn. Gatekeeper errors leave the encounter
// unchanged; an action outside the variant's is a recorded invalid turn.
func (e *Env) Step(ctx context.Context, in episode.StepInput) (clinic.Event, error) {
	if e.Done() {
		return clinic.Event{}, episode.ErrDone
	}
	out := in.Output
	ev := clinic.Event{Turn: e.Len(), Action: out.Action, Topic: out.Topic, RetrievedCards: in.RetrievedCards, PrunedCards: in.PrunedCards,
		Rationale: out.Rationale, WorkingDiagnoses: out.WorkingDiagnoses, LLMError: in.LLMError}
	switch {
	case in.LLMError:
		ev.Status = clinic.StatusUnparseable
	case !slices.Contains(e.sd.actions(), out.Action):
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("action %q is not one of this encounter's (%s, variant %s)", out.Action, actionList(e.sd.actions()), e.sd.Variant)
	case out.Action == clinic.Ask:
		if err := e.ask(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == clinic.RequestTest:
		if err := e.order(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	default:
		dx := textmatch.NonBlank(out.Diagnosis)
		if len(dx) == 0 {
			ev.Status, ev.Reply = clinic.StatusInvalid, "FINALIZE needs a diagnosis"
			break
		}
		ev.Status = clinic.StatusFinalized
		ev.Final = &clinic.FinalOutput{Diagnosis: dx, Evidence: out.Evidence, Plan: out.Plan, Followup: out.Followup}
	}
	e.apply(ev)
	return e.Latest(), nil
}

func actionList(as []clinic.ActionKind) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// apply records an event; at the turn limit the encounter ends with the
// latest working diagnosis, recorded on the event so that Start ends it the
// same way.
func (e *Env) apply(ev clinic.Event) {
	e.turns = append(e.turns, TurnOf(ev))
	if !e.Record(ev) && e.Len() >= e.cfg.MaxTurns {
		e.ForceEnd(&clinic.FinalOutput{Diagnosis: e.latestWorking(), Forced: true})
	}
}

func (e *Env) latestWorking() []string {
	events := e.Seen()
	for i := len(events) - 1; i >= 0; i-- {
		if len(events[i].WorkingDiagnoses) > 0 {
			return events[i].WorkingDiagnoses
		}
	}
	return nil
}

// overCap reports whether spending more would pass the budgeted variant's
// maximum budget.
func (e *Env) overCap(more float64) bool {
	return e.sd.CostCap > 0 && round(e.Spent()+more) > e.sd.CostCap
}

// visitCharge is what a question or an examination costs now: nothing
// while a visit is under way (or was begun earlier in the same turn), else
// one visit.
func (e *Env) visitCharge(t Turn) float64 {
	if e.visitOpen() || t.OpensVisit {
		return 0
	}
	return e.sd.VisitCost
}

// questionEvents are the questions answered so far as one event each, the
// shape the shared question machinery reads its caches from.
func (e *Env) questionEvents() []clinic.Event {
	var out []clinic.Event
	for i := range e.Seen() {
		for _, a := range e.turns[i].Answers {
			if !a.Refused {
				out = append(out, answerEvent(a))
			}
		}
	}
	return out
}

func answerEvent(a Answer) clinic.Event {
	return clinic.Event{Action: clinic.Ask, Question: a.Question, Status: clinic.StatusReturned, Reply: a.Reply,
		RevealedFacts: a.Facts, HeldFacts: a.Held, Unanswered: a.Unanswered, Generated: a.Generated, Topics: a.Topics}
}
