package grader

import (
	"encoding/json"
	"fmt"

	"github.com/clinevo/clinevo/bench/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
)

// gradeToolCall labels a call in a tool sandbox (KlinikeBench): a refused
// call is inefficient; with write-back, a call the key forbids is a critical
// error and one it requires is high yield; record_diagnosis is high yield
// when the encounter passed every gate; otherwise a call whose result the
// assessment used is high yield, any other low yield.
func gradeToolCall(ev clinic.Event, s Outcome, key *Key, supports func(string) bool) (Label, string) {
	args := map[string]string{}
	var raw map[string]any
	if json.Unmarshal(ev.Arguments, &raw) == nil {
		args = sandbox.Arguments(raw).Strings()
	}
	matches := func(spelled []string) (string, bool) {
		for _, sp := range spelled {
			c, err := clinic.ParseCall(sp)
			if err == nil && c.Tool == ev.Tool && sandbox.Meets(c.Arguments, args) {
				return sp, true
			}
		}
		return "", false
	}
	switch {
	case ev.Status == clinic.StatusInvalid || ev.Status == clinic.StatusUnparseable:
		return Inefficient, "the call was refused: " + ev.Reply
	case key != nil:
		if c, ok := matches(key.Avoid); ok {
			return CriticalError, "a call the task forbids: " + c
		}
	}
	switch {
	case ev.Tool == sandbox.RecordDiagnosis && s.Pass:
		return HighYield, "the encounter passed every gate"
	case ev.Tool == sandbox.RecordDiagnosis:
		return LowYield, fmt.Sprintf("the encounter did not pass every gate (S=%.2f)", s.S)
	case key != nil:
		if c, ok := matches(key.Calls); ok {
			return HighYield, "a call the task requires: " + c
		}
	}
	if ev.Status == clinic.StatusReturned && supports(ev.Reply) {
		return HighYield, "the result was used in the assessment"
	}
	return LowYield, "the call added little to the assessment"
}
