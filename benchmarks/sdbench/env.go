package sdbench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Actions are the encounter's three (SDBench): ask questions, order tests, and
// commit to a diagnosis.
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

func round(x float64) float64 { return math.Round(x*100) / 100 }

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
		if o.Status == clinic.StatusReturned && o.Price > 0 {
			n++
		}
	}
	return n
}

// View is the doctor's input: the abstract, every answer and result so far,
// the spend, and, where the run has them, the cost cap and the quotes.
func (e *Env) View(cards []clinic.CardHint, rules []string) clinic.DoctorView {
	v := clinic.DoctorView{Demographics: e.c.Patient.Demographics, OpeningComplaint: e.c.Patient.OpeningComplaint,
		Cards: cards, Rules: rules, Turn: e.Len(), MaxTurns: e.cfg.MaxTurns, TestsUsed: e.TestsDone(), MaxTests: e.cfg.MaxTests,
		FinalFields: []string{"diagnosis"}}
	for _, a := range Actions {
		v.Actions = append(v.Actions, string(a))
	}
	ext := View{SpentUSD: e.Spent(), CostCap: e.sd.CostCap, VisitCost: e.sd.VisitCost, OrderMode: e.sd.OrderMode}
	quoted := map[string]Quote{}
	var quoteOrder []string
	for i, ev := range e.Seen() {
		t := e.turns[i]
		switch ev.Action {
		case clinic.Ask:
			for _, a := range t.Answers {
				x := clinic.Exchange{Question: a.Question, Answer: a.Reply, Answered: len(a.Facts) > 0 || a.Generated}
				if len(t.Answers) == 1 {
					x.Topic = ev.Topic
				}
				v.Exchanges = append(v.Exchanges, x)
			}
			if ev.Status == clinic.StatusOverBudget {
				v.Exchanges = append(v.Exchanges, clinic.Exchange{Question: ev.Question, Answer: ev.Reply})
			}
		case clinic.RequestTest:
			for _, o := range t.Orders {
				switch o.Status {
				case Quoted:
					if _, ok := quoted[o.Test]; !ok {
						quoteOrder = append(quoteOrder, o.Test)
					}
					quoted[o.Test] = Quote{Test: o.Test, USD: o.Price}
					continue
				case clinic.StatusReturned:
					delete(quoted, o.Test)
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
// unchanged; an action outside the three is a recorded invalid turn.
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
	case out.Action == clinic.Ask:
		if err := e.ask(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == clinic.RequestTest:
		if err := e.order(ctx, out, &ev); err != nil {
			return clinic.Event{}, err
		}
	case out.Action == clinic.Finalize:
		dx := textmatch.NonBlank(out.Diagnosis)
		if len(dx) == 0 {
			ev.Status, ev.Reply = clinic.StatusInvalid, "FINALIZE needs a diagnosis"
			break
		}
		ev.Status = clinic.StatusFinalized
		ev.Final = &clinic.FinalOutput{Diagnosis: dx, Evidence: out.Evidence, Plan: out.Plan, Followup: out.Followup}
	default:
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("unknown action %q; use one of ASK, REQUEST_TEST, FINALIZE", out.Action)
	}
	e.apply(ev)
	return e.Latest(), nil
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

// overCap reports whether spending more would pass the run's cost cap.
func (e *Env) overCap(more float64) bool {
	return e.sd.CostCap > 0 && round(e.Spent()+more) > e.sd.CostCap
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

// ask answers a question turn, one physician visit, question by question:
// each from the gatekeeper, or from the encounter's cache when it was asked
// before (or its topics were answered beyond the record); a request for the
// diagnosis is refused without asking the gatekeeper.
func (e *Env) ask(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	qs := Questions(out)
	ev.Question = strings.Join(qs, " ")
	if len(qs) == 0 {
		ev.Status, ev.Reply = clinic.StatusUnparseable, "ASK needs a question"
		return nil
	}
	if e.overCap(e.sd.VisitCost) {
		ev.Status = clinic.StatusOverBudget
		ev.Reply = fmt.Sprintf("the cost cap of $%g is reached ($%g spent; a visit costs $%g): commit to a diagnosis", e.sd.CostCap, e.Spent(), e.sd.VisitCost)
		return nil
	}
	prev := e.questionEvents()
	rules := episode.Rules{Invent: true}
	var t Turn
	for _, q := range qs {
		if asksForDiagnosis(q) {
			t.Answers = append(t.Answers, Answer{Question: q, Reply: "I can report findings only; the diagnosis is yours to make.", Unanswered: episode.UnclearQuestion, Refused: true})
			continue
		}
		sub := clinic.Event{Action: clinic.Ask, Question: q}
		o := clinic.DoctorOutput{Action: clinic.Ask, Question: q}
		if len(qs) == 1 {
			o.Topic = out.Topic
		}
		if err := episode.AskPatientUnder(ctx, e.c, asPatient{e.gk, &e.c}, rules, prev, o, &sub); err != nil {
			return fmt.Errorf("gatekeeper: %w", err)
		}
		a := Answer{Question: q, Reply: sub.Reply, Facts: sub.RevealedFacts, Held: sub.HeldFacts, Unanswered: sub.Unanswered,
			Generated: sub.Generated, Topics: sub.Topics, Cached: sub.Cached}
		ev.LLMError = ev.LLMError || sub.LLMError
		t.Answers = append(t.Answers, a)
		prev = append(prev, answerEvent(a))
	}
	ev.Status, ev.Cost, ev.Unanswered, ev.Cached = clinic.StatusReturned, e.sd.VisitCost, episode.NotInPatientView, true
	var lines []string
	for _, a := range t.Answers {
		for _, id := range a.Facts {
			if !slices.Contains(ev.RevealedFacts, id) {
				ev.RevealedFacts = append(ev.RevealedFacts, id)
			}
		}
		ev.HeldFacts = append(ev.HeldFacts, a.Held...)
		if len(a.Facts) > 0 || a.Generated {
			ev.Unanswered = episode.AnsweredNone
		}
		if a.Generated {
			ev.Generated = true
			ev.Topics = append(ev.Topics, a.Topics...)
		}
		ev.Cached = ev.Cached && a.Cached
		lines = append(lines, a.Reply)
		if len(t.Answers) > 1 {
			lines[len(lines)-1] = "Q: " + a.Question + " A: " + a.Reply
		}
	}
	ev.Reply = strings.Join(lines, "\n")
	setTurn(ev, t)
	return nil
}

// order performs a test turn, test by test: a test done before gives its
// result again at no charge; under ask_before_order a test is first quoted;
// one that would pass the cost cap is refused; a recorded result is returned
// verbatim, an examination reads the record's findings, and any other test
// gets the gatekeeper's synthetic result, consistent with the case.
func (e *Env) order(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	reqs := Tests(out)
	if len(reqs) == 0 {
		ev.Status, ev.Reply = clinic.StatusUnparseable, "REQUEST_TEST needs a test_name"
		return nil
	}
	earlier := e.orders()
	var t Turn
	cost := 0.0
	free := true
	for _, req := range reqs {
		it, m, err := e.exam.Resolve(ctx, req, e.cat)
		if err != nil {
			return fmt.Errorf("exam service: %w", err)
		}
		if m == catalog.MatchNone {
			it = catalog.Item{Name: textmatch.Normalize(req), Category: catalog.Infer(req)}
		}
		o := Order{Request: req, Test: it.Name, Price: Prices.Test(it)}
		free = free && it.Free()
		done := append(slices.Clone(earlier), t.Orders...)
		if i := slices.IndexFunc(done, func(p Order) bool { return p.Test == o.Test && p.Status == clinic.StatusReturned }); i >= 0 {
			o.Status, o.Result, o.Synthetic, o.Price = clinic.StatusDuplicate, done[i].Result, done[i].Synthetic, 0
			t.Orders = append(t.Orders, o)
			continue
		}
		quotedBefore := slices.ContainsFunc(earlier, func(p Order) bool { return p.Test == o.Test && p.Status == Quoted })
		switch {
		case e.sd.OrderMode == AskBeforeOrder && o.Price > 0 && !quotedBefore:
			o.Status = Quoted
		case e.overCap(cost + o.Price):
			o.Status = clinic.StatusOverBudget
		default:
			res, synthetic, err := e.result(ctx, it)
			if err != nil {
				return err
			}
			o.Status, o.Result, o.Synthetic = clinic.StatusReturned, res, synthetic
			cost += o.Price
		}
		if o.Status != clinic.StatusReturned {
			o.Price = round(o.Price) // what it would cost: not charged
		}
		t.Orders = append(t.Orders, o)
	}
	var names, lines []string
	status := clinic.StatusOverBudget
	for _, o := range t.Orders {
		names = append(names, o.Test)
		switch o.Status {
		case clinic.StatusReturned, clinic.StatusDuplicate:
			status = clinic.StatusReturned
			lines = append(lines, o.Test+": "+o.Result)
		case Quoted:
			if status != clinic.StatusReturned {
				status = Quoted
			}
			lines = append(lines, fmt.Sprintf("%s: quoted at $%g (spent so far $%g); order it again to perform it", o.Test, o.Price, e.Spent()))
		case clinic.StatusOverBudget:
			lines = append(lines, fmt.Sprintf("%s: refused, $%g would pass the cost cap of $%g ($%g spent)", o.Test, o.Price, e.sd.CostCap, e.Spent()))
		}
	}
	if len(t.Orders) == 1 && t.Orders[0].Status == clinic.StatusDuplicate {
		status = clinic.StatusDuplicate
	}
	ev.Test, ev.Status, ev.Reply, ev.Cost, ev.Free = strings.Join(names, "; "), status, strings.Join(lines, "\n"), round(cost), free
	setTurn(ev, t)
	return nil
}

// result is a test's result: the record's, or the gatekeeper's synthetic one.
func (e *Env) result(ctx context.Context, it catalog.Item) (string, bool, error) {
	if it.Free() {
		if text, ok := e.findings(it); ok {
			return text, false, nil
		}
	} else {
		for _, tv := range e.c.Exam.Tests {
			if tv.Name == it.Name {
				return tv.Result, false, nil
			}
		}
	}
	if text, ok := e.narrative(it); ok {
		return text, false, nil
	}
	text, err := e.gk.Synthesize(ctx, &e.c, it.Name, e.Revealed())
	if err != nil {
		return "", false, fmt.Errorf("gatekeeper: %w", err)
	}
	return text, true, nil
}

// narrative is what the full record's text says of a test the structured
// record lacks (an imported case given as narrative only): its sentences
// that name the test, by its name or an alias.
func (e *Env) narrative(it catalog.Item) (string, bool) {
	full := RecordOf(&e.c).FullCase
	if full == "" || it.Name == catalog.PhysicalKey {
		return "", false
	}
	names := append([]string{it.Name, strings.TrimSuffix(it.Name, " examination")}, it.Aliases...)
	var sentences, out []string
	for _, line := range strings.Split(full, "\n") {
		sentences = append(sentences, corpus.Sentences(strings.TrimPrefix(strings.TrimSpace(line), "- "))...)
	}
	for _, s := range sentences {
		for _, n := range names {
			if len(n) > 2 && textmatch.ContainsPhrase(s, n) {
				out = append(out, s)
				break
			}
		}
	}
	return strings.Join(out, " "), len(out) > 0
}

// findings is the record's examination text for an examination item: every
// system for the physical examination, else the item's system.
func (e *Env) findings(it catalog.Item) (string, bool) {
	var parts []string
	for _, f := range e.c.Exam.Findings {
		switch {
		case it.Name == catalog.PhysicalKey:
			parts = append(parts, f.System+": "+f.Text)
		case f.System == strings.TrimSuffix(it.Name, " examination"):
			parts = append(parts, f.Text)
		}
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}
