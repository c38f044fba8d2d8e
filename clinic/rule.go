package clinic

import "strings"

// RuleDirective is the machine-readable head of a prompt rule. Rules are written
// "VERB TARGET [WHEN context words]: explanation", e.g.
// "ASK triggers WHEN chest tight exertion: the trigger separates angina from reflux".
// Model doctors read the whole sentence; the built-in doctor reads the head.
type RuleDirective struct {
	Verb   string // ASK | REQUEST_TEST | AVOID_TEST | AVOID_ASK | FINALIZE_BY | CALL
	Target string // a topic, a test name or a turn number
	When   string // context words; empty means always
}

// Rule verbs.
const (
	VerbAsk        = "ASK"
	VerbTest       = "REQUEST_TEST"
	VerbAvoidTest  = "AVOID_TEST"
	VerbAvoidAsk   = "AVOID_ASK"
	VerbFinalizeBy = "FINALIZE_BY"
	VerbCall       = "CALL" // a tool call with its arguments, spelled tool(name=value, ...)
)

// ParseRule reads a rule's directive; ok is false for free-text rules.
func ParseRule(text string) (RuleDirective, bool) {
	head, _, _ := strings.Cut(text, ":")
	verb, rest, _ := strings.Cut(strings.TrimSpace(head), " ")
	switch verb {
	case VerbAsk, VerbTest, VerbAvoidTest, VerbAvoidAsk, VerbFinalizeBy, VerbCall:
	default:
		return RuleDirective{}, false
	}
	target, when, _ := strings.Cut(rest, " WHEN ")
	return RuleDirective{Verb: verb, Target: strings.TrimSpace(target), When: strings.TrimSpace(when)}, true
}

// String renders the directive head.
func (d RuleDirective) String() string {
	s := d.Verb + " " + d.Target
	if d.When != "" {
		s += " WHEN " + d.When
	}
	return s
}
