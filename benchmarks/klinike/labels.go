package klinike

import (
	"encoding/json"
	"fmt"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

// Key is KlinikeBench's part of the manager's write-back (grader.Key.Bench):
// R and M of the task (§2.1, eq. 2), the calls it requires and forbids,
// spelled as clinic.Call, and its must-ask topics.
type Key struct {
	Calls   []string `json:"calls,omitempty"`
	Avoid   []string `json:"avoid_calls,omitempty"`
	MustAsk []string `json:"must_ask,omitempty"`
}

var _ grader.KeyMaker = Benchmark{}

// WriteBack is the task's Key; nil for a case without a tool key.
func (Benchmark) WriteBack(c *clinic.Case, _ clinic.Scores) any {
	t, err := ToolKeyOf(c)
	if err != nil || t == nil {
		return nil // no tool key; one that does not decode failed the case's validation already
	}
	return &Key{Calls: t.Calls(), Avoid: t.Avoid(), MustAsk: c.Manager.MustAsk}
}

// keyOf is the benchmark's part of a write-back key; nil under score-only
// feedback or for a case without a tool key.
func keyOf(k *grader.Key) *Key {
	if k == nil {
		return nil
	}
	own, _ := k.Bench.(*Key) // nil when the case has no tool key
	return own
}

var _ grader.Labeler = Benchmark{}

// LabelAction labels a tool call (Label); every other action is the shared
// labels'.
func (b Benchmark) LabelAction(ev clinic.Event, lc grader.LabelContext) (grader.ActionGrade, bool) {
	if ev.Action != ToolCall {
		return grader.ActionGrade{}, false
	}
	target := b.Describe(ev).Target
	label, why := Label(ev, lc.Outcome, keyOf(lc.Key), lc.Supports)
	return grader.ActionGrade{Target: target, Label: label, Rationale: why}, true
}

// Label labels a call in the tool sandbox: a refused call is inefficient;
// with write-back, a call the key forbids is a critical error and one it
// requires is high yield; record_diagnosis is high yield when the encounter
// passed every gate; otherwise a call whose result the assessment used is
// high yield, any other low yield.
func Label(ev clinic.Event, s grader.Outcome, key *Key, supports func(string) bool) (grader.Label, string) {
	call := CallOf(ev.Ext)
	args := map[string]string{}
	var raw map[string]any
	if json.Unmarshal(call.Arguments, &raw) == nil {
		args = sandbox.Arguments(raw).Strings()
	}
	matches := func(spelled []string) (string, bool) {
		for _, sp := range spelled {
			c, err := ParseCall(sp)
			if err == nil && c.Tool == call.Tool && sandbox.Meets(c.Arguments, args) {
				return sp, true
			}
		}
		return "", false
	}
	switch {
	case ev.Status == clinic.StatusInvalid || ev.Status == clinic.StatusUnparseable:
		return grader.Inefficient, "the call was refused: " + ev.Reply
	case key != nil:
		if c, ok := matches(key.Avoid); ok {
			return grader.CriticalError, "a call the task forbids: " + c
		}
	}
	switch {
	case call.Tool == sandbox.RecordDiagnosis && s.Pass:
		return grader.HighYield, "the encounter passed every gate"
	case call.Tool == sandbox.RecordDiagnosis:
		return grader.LowYield, fmt.Sprintf("the encounter did not pass every gate (S=%.2f)", s.S)
	case key != nil:
		if c, ok := matches(key.Calls); ok {
			return grader.HighYield, "a call the task requires: " + c
		}
	}
	if ev.Status == clinic.StatusReturned && supports(ev.Reply) {
		return grader.HighYield, "the result was used in the assessment"
	}
	return grader.LowYield, "the call added little to the assessment"
}
