package klinike

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Learning in the tool sandbox: which tools and arguments a presentation
// needs. With write-back the key's required calls and must-ask topics are
// the lesson; under score-only feedback, the calls of an episode that passed
// every gate.

var _ evolver.Lessons = Benchmark{}

// Cards puts an episode's tool lesson on its success or correction card.
func (Benchmark) Cards(in evolver.Input, truth *grader.Key, cards []clinic.Card) []clinic.Card {
	return withCalls(cards, in, truth)
}

// Edits are the CALL rules the episode's tool lesson proposes.
func (Benchmark) Edits(_ settings.Evolver, in evolver.Input, truth *grader.Key) []evolver.Edit {
	return toolEdits(in, truth, evolver.ContextWords(in.Opening))
}

// lessonCalls are the calls an episode teaches, spelled as clinic.Call; nil
// when it made no tool call.
func lessonCalls(in evolver.Input, truth *grader.Key) []string {
	if !slices.ContainsFunc(in.Events, func(ev clinic.Event) bool { return ev.Action == ToolCall }) {
		return nil
	}
	if truth != nil {
		if own := keyOf(truth); own != nil {
			return own.Calls
		}
		return nil // write-back of a case without a tool key: no call to teach
	}
	if !in.Outcome.Pass {
		return nil
	}
	var out []string
	for _, ev := range in.Events {
		if ev.Action != ToolCall || ev.Status != clinic.StatusReturned {
			continue
		}
		call := CallOf(ev.Ext)
		if call.Tool == sandbox.RecordDiagnosis || call.Tool == "record_differential" {
			continue
		}
		var args sandbox.Arguments
		if json.Unmarshal(call.Arguments, &args) != nil {
			continue
		}
		if c := (Call{Tool: call.Tool, Arguments: args.Strings()}).String(); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// withCalls puts an episode's tool lesson on its success or correction card:
// the calls, the key's must-ask topics with write-back, and both in the text
// model doctors read.
func withCalls(cards []clinic.Card, in evolver.Input, truth *grader.Key) []clinic.Card {
	calls := lessonCalls(in, truth)
	if len(calls) == 0 {
		return cards
	}
	own := keyOf(truth)
	for i := range cards {
		c := &cards[i]
		if c.Kind != clinic.CardSuccess && c.Kind != clinic.CardCorrection {
			continue
		}
		c.Calls = calls
		if truth != nil {
			for _, t := range own.MustAsk {
				if !slices.Contains(c.Ask, t) {
					c.Ask = append(c.Ask, t)
				}
			}
			c.Text += "; ask about " + list(c.Ask)
		}
		c.Text += "; calls: " + strings.Join(calls, "; ")
		if truth != nil && len(own.Avoid) > 0 {
			c.Text += "; never: " + strings.Join(own.Avoid, "; ")
		}
	}
	return cards
}

// toolEdits are the rules an episode's tool lesson proposes: CALL each
// call that carries arguments, for presentations like this one.
func toolEdits(in evolver.Input, truth *grader.Key, ctxWords []string) []evolver.Edit {
	var out []evolver.Edit
	for _, s := range lessonCalls(in, truth) {
		c, err := ParseCall(s)
		if err != nil || len(c.Arguments) == 0 {
			continue
		}
		d := clinic.RuleDirective{Verb: clinic.VerbCall, Target: s, When: strings.Join(ctxWords, " ")}
		out = append(out, evolver.Edit{Op: evolver.OpAdd, Text: fmt.Sprintf("%s: presentations like this needed this call", d)})
	}
	return out
}

// list spells topics for a card's text: "onset, allergies", or "none".
func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
