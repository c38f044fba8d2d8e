package sdbench

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

// refusalText is the gatekeeper's answer to a request for the diagnosis
// (§2: it "explicitly refuses to provide diagnostic impressions").
const refusalText = "I can report findings only; the diagnosis is yours to make."

// ask answers a question turn question by question: each from the
// gatekeeper, or from the encounter's cache when it was asked before (or its
// topics were answered beyond the record); a request for this patient's
// diagnosis is refused without asking the gatekeeper. The turn is part of a
// physician visit: it costs a visit when none is under way (§3).
func (e *Env) ask(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	qs := Questions(out)
	ev.Question = strings.Join(qs, " ")
	if len(qs) == 0 {
		ev.Status, ev.Reply = clinic.StatusUnparseable, "ASK needs a question"
		return nil
	}
	var t Turn
	if charge := e.visitCharge(t); charge > 0 {
		if e.overCap(charge) {
			ev.Status = clinic.StatusOverBudget
			ev.Reply = fmt.Sprintf("refused: a new visit costs $%g, which would pass the budget of $%g ($%g spent); commit to a diagnosis", charge, e.sd.CostCap, e.Spent())
			return nil
		}
		t.OpensVisit, t.VisitUSD = true, charge
	}
	if err := e.answer(ctx, out, qs, &t, ev); err != nil {
		return err
	}
	ev.Status, ev.Cost = clinic.StatusReturned, t.VisitUSD
	summarise(t, ev)
	setTurn(ev, t)
	return nil
}

// answer asks the gatekeeper each question in turn.
func (e *Env) answer(ctx context.Context, out clinic.DoctorOutput, qs []string, t *Turn, ev *clinic.Event) error {
	prev := e.questionEvents()
	rules := episode.Rules{Invent: true}
	for _, q := range qs {
		if AsksForDiagnosis(q) {
			t.Answers = append(t.Answers, Answer{Question: q, Reply: refusalText, Unanswered: episode.UnclearQuestion, Refused: true})
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
	return nil
}

// summarise writes a question turn's answers onto its event as the shared
// fields hold them.
func summarise(t Turn, ev *clinic.Event) {
	ev.Unanswered, ev.Cached = episode.NotInPatientView, true
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
		line := a.Reply
		if len(t.Answers) > 1 {
			line = "Q: " + a.Question + " A: " + a.Reply
		}
		lines = append(lines, line)
	}
	ev.Reply = strings.Join(lines, "\n")
}
