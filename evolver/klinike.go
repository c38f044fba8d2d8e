package evolver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/bench/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

// Learning in a tool sandbox (KlinikeBench): which tools and arguments a
// presentation needs. With write-back the key's required calls and must-ask
// topics are the lesson; under score-only feedback, the calls of an episode
// that passed every gate.

// lessonCalls are the calls an episode teaches, spelled as clinic.Call; nil
// when it made no tool call.
func lessonCalls(in Input, truth *grader.Key) []string {
	if !slices.ContainsFunc(in.Events, func(ev clinic.Event) bool { return ev.Action == clinic.ToolCall }) {
		return nil
	}
	if truth != nil {
		return truth.Calls
	}
	if !in.Outcome.Pass {
		return nil
	}
	var out []string
	for _, ev := range in.Events {
		if ev.Action != clinic.ToolCall || ev.Status != clinic.StatusReturned || ev.Tool == sandbox.RecordDiagnosis || ev.Tool == "record_differential" {
			continue
		}
		var args sandbox.Arguments
		if json.Unmarshal(ev.Arguments, &args) != nil {
			continue
		}
		if c := (clinic.Call{Tool: ev.Tool, Arguments: args.Strings()}).String(); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// withCalls puts an episode's tool lesson on its success or correction card:
// the calls, the key's must-ask topics with write-back, and both in the text
// model doctors read.
func withCalls(cards []clinic.Card, in Input, truth *grader.Key) []clinic.Card {
	calls := lessonCalls(in, truth)
	if len(calls) == 0 {
		return cards
	}
	for i := range cards {
		c := &cards[i]
		if c.Kind != clinic.CardSuccess && c.Kind != clinic.CardCorrection {
			continue
		}
		c.Calls = calls
		if truth != nil {
			for _, t := range truth.MustAsk {
				if !slices.Contains(c.Ask, t) {
					c.Ask = append(c.Ask, t)
				}
			}
			c.Text += "; ask about " + list(c.Ask)
		}
		c.Text += "; calls: " + strings.Join(calls, "; ")
		if truth != nil && len(truth.Avoid) > 0 {
			c.Text += "; never: " + strings.Join(truth.Avoid, "; ")
		}
	}
	return cards
}

// toolEdits are the rules an episode's tool lesson proposes: CALL each
// call that carries arguments, for presentations like this one.
func toolEdits(in Input, truth *grader.Key, ctxWords []string) []Edit {
	var out []Edit
	for _, s := range lessonCalls(in, truth) {
		c, err := clinic.ParseCall(s)
		if err != nil || len(c.Arguments) == 0 {
			continue
		}
		d := clinic.RuleDirective{Verb: clinic.VerbCall, Target: s, When: strings.Join(ctxWords, " ")}
		out = append(out, Edit{Op: OpAdd, Text: fmt.Sprintf("%s: presentations like this needed this call", d)})
	}
	return out
}
