package klinike

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// The KlinikeBench task t = (d, Φ⁺, Φ⁻, π, R, M) with accepted alternatives
// A(d) (KlinikeBench §2.1, eq. 2) maps onto the native case: d and A(d) are
// ManagerView.Diagnosis (display name and acceptable names); Φ⁺ are the
// patient's facts and Φ⁻ the facts marked Absent (the patient denies them when
// asked); π is PatientView.Persona; R is the tool key (required tools and
// argument-level action constraints, the manager view's member "tool_key")
// with the sandbox (the exam view's member "sandbox"); M is
// ManagerView.MustAsk.

// ToolCall is the doctor's tool call (§2.2): its tool and arguments are the
// event's and the output's Call members (CallOf).
const ToolCall clinic.ActionKind = "TOOL_CALL"

// Sandbox is a task's clinical tool environment (KlinikeBench §2.2 and
// appendix B): the tools exposed to the doctor, the tools the task forbids,
// and the chart the record tools read. Tool handlers read only the case: the
// chart here, the examination findings and the test results of ExamView.
type Sandbox struct {
	// Tools are the tool names exposed to the doctor (3 to 24, record_diagnosis
	// among them: KlinikeBench appendix B.1).
	Tools []string `json:"tools"`
	// Forbidden tools are never exposed; a call to one is refused and fails
	// the action-constraint gate A.
	Forbidden []string       `json:"forbidden,omitempty"`
	Record    sandbox.Record `json:"record"`
}

// ToolKey is R of a KlinikeBench task, part of the hidden scoring key: the
// tools that must be called (gate W) and the argument-level action
// constraints (gate A) (KlinikeBench §2.2, appendix B.3).
type ToolKey struct {
	Required    []string           `json:"required_tools"`
	Constraints []ActionConstraint `json:"constraints,omitempty"`
}

// Constraint rules.
const (
	// RuleMust is met when some executed call of the tool has every listed argument value.
	RuleMust = "must"
	// RuleNever is met when no executed call of the tool has every listed argument value.
	RuleNever = "never"
)

// ActionConstraint is one argument-level constraint, e.g. order_imaging must
// have modality CT and region abdomen, prescribe_medication never has drug
// amoxicillin. Values compare by words after normalisation: every word of the
// constraint's value must be in the call's value.
type ActionConstraint struct {
	Tool      string            `json:"tool"`
	Rule      string            `json:"rule"` // must | never
	Arguments map[string]string `json:"arguments"`
	Reason    string            `json:"reason,omitempty"`
}

// Call is a tool call as cards, rules and the write-back name it:
// "order_imaging(modality=CT, region=abdomen)". Values hold no comma,
// parenthesis, equals sign or colon.
type Call struct {
	Tool      string
	Arguments map[string]string
}

// String spells the call with its arguments in name order.
func (c Call) String() string {
	keys := make([]string, 0, len(c.Arguments))
	for k := range c.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + c.Arguments[k]
	}
	return c.Tool + "(" + strings.Join(parts, ", ") + ")"
}

// ParseCall reads a call spelled by Call.String; a bare tool name has no arguments.
func ParseCall(s string) (Call, error) {
	s = strings.TrimSpace(s)
	name, rest, hasArgs := strings.Cut(s, "(")
	c := Call{Tool: strings.TrimSpace(name), Arguments: map[string]string{}}
	if c.Tool == "" || strings.ContainsAny(c.Tool, " ,=)") {
		return Call{}, fmt.Errorf("call %q: want tool(name=value, ...)", s)
	}
	if !hasArgs {
		return c, nil
	}
	body, ok := strings.CutSuffix(rest, ")")
	if !ok {
		return Call{}, fmt.Errorf("call %q: missing closing parenthesis", s)
	}
	for _, p := range strings.Split(body, ",") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return Call{}, fmt.Errorf("call %q: argument %q is not name=value", s, strings.TrimSpace(p))
		}
		c.Arguments[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return c, nil
}

// Calls are the calls the key requires: one per must-constraint, and the bare
// name of each required tool no must-constraint covers, in required order.
// This is what write-back feedback tells the learner of R.
func (k ToolKey) Calls() []string {
	var out []string
	for _, t := range k.Required {
		found := false
		for _, c := range k.Constraints {
			if c.Tool == t && c.Rule == RuleMust {
				out = append(out, Call{Tool: t, Arguments: c.Arguments}.String())
				found = true
			}
		}
		if !found {
			out = append(out, Call{Tool: t}.String())
		}
	}
	for _, c := range k.Constraints {
		if c.Rule == RuleMust && !slices.Contains(k.Required, c.Tool) {
			out = append(out, Call{Tool: c.Tool, Arguments: c.Arguments}.String())
		}
	}
	return out
}

// Avoid are the calls the key forbids (never-constraints), spelled as calls.
func (k ToolKey) Avoid() []string {
	var out []string
	for _, c := range k.Constraints {
		if c.Rule == RuleNever {
			out = append(out, Call{Tool: c.Tool, Arguments: c.Arguments}.String())
		}
	}
	return out
}

// examPart and keyPart are the task's members of the exam view and the
// manager view (clinic.Ext).
type (
	examPart struct {
		Sandbox *Sandbox `json:"sandbox,omitempty"`
	}
	keyPart struct {
		Tools *ToolKey `json:"tool_key,omitempty"`
	}
)

// SandboxOf is the case's sandbox, nil for a case without one. The error is
// a member "sandbox" that is not a sandbox (ValidateCase names it).
func SandboxOf(c *clinic.Case) (*Sandbox, error) {
	var p examPart
	if err := c.Exam.Ext.Decode(&p); err != nil {
		return nil, fmt.Errorf("exam_view.sandbox: %w", err)
	}
	return p.Sandbox, nil
}

// ToolKeyOf is the case's tool key, nil for a case without one. The error is
// a member "tool_key" that is not a tool key (ValidateCase names it).
func ToolKeyOf(c *clinic.Case) (*ToolKey, error) {
	var p keyPart
	if err := c.Manager.Ext.Decode(&p); err != nil {
		return nil, fmt.Errorf("manager_view.tool_key: %w", err)
	}
	return p.Tools, nil
}

// SetTask writes the sandbox and the tool key into the case (nil removes
// either).
func SetTask(c *clinic.Case, sb *Sandbox, key *ToolKey) {
	// Both are plain data (strings and maps of strings), which always
	// marshal: Put cannot fail on them.
	c.Exam.Ext, _ = c.Exam.Ext.Put(examPart{Sandbox: sb})
	c.Manager.Ext, _ = c.Manager.Ext.Put(keyPart{Tools: key})
}

// CallFields are a tool call's members of an event and of a doctor's output,
// written inline with the shared ones under their names.
type CallFields struct {
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// CallOf reads the call members of an event's or an output's extension. The
// members are the environment's and the doctor's own writing (WithCall): a
// stored member that does not decode reads as a call without a tool, which
// the sandbox refuses.
func CallOf(x clinic.Ext) CallFields {
	var c CallFields
	if err := x.Decode(&c); err != nil {
		return CallFields{}
	}
	return c
}

// WithCall is x with the call's members (none for the zero call).
// Arguments that are not JSON are kept as a JSON string of their text, as
// the trace keeps them: the sandbox refuses them as not an object.
func WithCall(x clinic.Ext, c CallFields) clinic.Ext {
	c.Arguments = rawJSON(c.Arguments)
	out, err := x.Put(c)
	if err != nil {
		return x // not reached: a string and valid JSON always marshal
	}
	return out
}

// rawJSON keeps arguments as JSON: valid JSON as it is, anything else as a
// JSON string of its text.
func rawJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return append(json.RawMessage(nil), b...)
	}
	s, _ := json.Marshal(string(b)) // a string always marshals
	return s
}

// CallOutput is the doctor's output of a tool call.
func CallOutput(tool string, args json.RawMessage) clinic.DoctorOutput {
	return clinic.DoctorOutput{Action: ToolCall, Ext: WithCall(nil, CallFields{Tool: tool, Arguments: args})}
}

var _ corpus.CaseFields = Benchmark{}

// CaseFields are the exam view's sandbox and the manager view's tool_key.
func (Benchmark) CaseFields() (exam, manager []string) {
	return []string{"sandbox"}, []string{"tool_key"}
}
