// Package gptest is the scripted model of the GP workflow for tests: a
// doctor that plays the workflow in the GP prompt's reply format, and a
// judge that answers the Dx and Tx questions. Set it as an llmtest server's
// Policy.
package gptest

import (
	"regexp"
	"strings"

	"github.com/clinevo/clinevo/llm/llmtest"
)

var questionLine = regexp.MustCompile(`(?m)^- Q: `)

// Policy answers the GP doctor's and the Dx and Tx judges' requests, and
// leaves every other request to the server's shared policies (nil).
func Policy(r llmtest.Request) *llmtest.Reply {
	switch {
	case r.Role == "doctor" && strings.Contains(r.System, "primary-care consultation"):
		return &llmtest.Reply{Status: 200, Content: doctor(r)}
	case r.Role == "judge" && strings.Contains(r.User, "Predicted diagnosis:"):
		return &llmtest.Reply{Status: 200, Content: `{"score":1,"reason":"scripted"}`}
	case r.Role == "judge" && strings.Contains(r.User, "Predicted treatment:"):
		return &llmtest.Reply{Status: 200, Content: `{"score":0.5,"reason":"scripted"}`}
	}
	return nil
}

// doctor plays the workflow in the prompt's reply format (tags when the
// prompt asks for <think>, JSON otherwise): two questions, then diagnose,
// then treat.
func doctor(r llmtest.Request) string {
	tags := strings.Contains(r.System, "<think>")
	switch {
	case strings.Contains(r.User, "Current workflow state: diagnosed"):
		if tags {
			return "<think>gpagent.Treat what I diagnosed.</think>\n<action type=\"treat\">\nDiagnosis: Migraine\nPlan: simple analgesia; review in two weeks\n</action>"
		}
		return `{"action":"treat","diagnosis":["Migraine"],"plan":["simple analgesia","review in two weeks"]}`
	case len(questionLine.FindAllString(r.User, -1)) < 2:
		if tags {
			return "<think>Take a history.</think>\n<action type=\"ask\">When did it start and what makes it worse?</action>"
		}
		return `{"action":"ask","question":"When did it start and what makes it worse?"}`
	}
	if tags {
		return "<think>Enough history.</think>\n<action type=\"diagnose\">\nDiagnosis: Migraine\nRationale: recurrent headache\n</action>"
	}
	return `{"action":"diagnose","diagnosis":["Migraine"],"rationale":["recurrent headache"]}`
}
