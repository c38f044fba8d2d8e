// Package fakellm scripts llmtest's fake endpoint for KlinikeBench's model
// roles: the doctor in the tool sandbox and the must-ask judge. Tests set
// Script as the server's script; every other request falls through to
// llmtest's policies.
package fakellm

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/llm/llmtest"
)

var (
	questionLine = regexp.MustCompile(`(?m)^- Q: `)
	topicLine    = regexp.MustCompile(`(?m)^T\d+\. (.+)$`)
)

// Script answers the sandbox doctor and the must-ask judge plausibly: the
// doctor asks one question, then records a diagnosis (by a function call
// when the request offers functions, else as a JSON step); the judge hears
// every must-ask topic. Any other request gets nil (llmtest's policies).
func Script(n int, r llmtest.Request) *llmtest.Reply {
	switch {
	case r.Role == "doctor" && len(r.Tools) > 0:
		if len(questionLine.FindAllString(r.User, -1)) < 1 && r.ToolChoice != "required" {
			return &llmtest.Reply{Status: 200, Content: "When did it start and what makes it worse?"}
		}
		if slices.Contains(r.Tools, "record_diagnosis") {
			return Calls(n, Call{Name: "record_diagnosis", Arguments: `{"diagnosis":"Migraine","confidence":"low"}`})
		}
	case r.Role == "doctor" && strings.Contains(r.System, "Tools you can call"): // the sandbox without function calling
		if len(questionLine.FindAllString(r.User, -1)) < 1 && strings.Contains(r.System, `"ASK"`) {
			return &llmtest.Reply{Status: 200, Content: `{"action":"ASK","question":"When did it start and what makes it worse?","working_diagnoses":["viral illness"]}`}
		}
		return &llmtest.Reply{Status: 200, Content: `{"action":"TOOL_CALL","tool":"record_diagnosis","arguments":{"diagnosis":"Migraine","confidence":"low"},"working_diagnoses":["Migraine"]}`}
	case r.Role == "judge" && strings.HasPrefix(r.User, "Must-ask topics:"):
		var vs []string
		for _, m := range topicLine.FindAllStringSubmatch(r.User, -1) {
			vs = append(vs, fmt.Sprintf(`{"topic":%q,"raised":true}`, m[1]))
		}
		return &llmtest.Reply{Status: 200, Content: `{"verdicts":[` + strings.Join(vs, ",") + `]}`}
	}
	return nil
}

// Call is one function call of a reply; Arguments is the JSON text the
// OpenAI format carries.
type Call struct {
	ID, Name, Arguments string
}

// Calls is the reply to request n (0-based) that makes the function calls,
// spelled as the OpenAI format spells them; a call without an ID gets
// "call-<n>-<i>".
func Calls(n int, calls ...Call) *llmtest.Reply {
	var out []any
	for i, c := range calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call-%d-%d", n, i)
		}
		out = append(out, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	return &llmtest.Reply{Status: 200, Message: map[string]any{"tool_calls": out}, Finish: "tool_calls"}
}
