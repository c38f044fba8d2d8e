package klinike

import (
	"encoding/json"

	"github.com/clinevo/clinevo/clinic"
)

// View is KlinikeBench's part of the doctor's view (DoctorView.Ext): the
// phase of the encounter, the tools it may call now, the calls made and what
// came back (refusals with their reasons included), and its budgets. It holds
// nothing the doctor may not see.
type View struct {
	Phase            string       `json:"phase,omitempty"`
	Tools            []ToolSpec   `json:"tools,omitempty"`        // tools exposed to the doctor
	ToolResults      []ToolResult `json:"tool_results,omitempty"` // calls made and what came back
	StepsLeft        int          `json:"steps_left,omitempty"`
	PatientTurnsLeft int          `json:"patient_turns_left,omitempty"`
}

// DoctorViewExt marks View as a part of the doctor's view.
func (View) DoctorViewExt() {}

// ViewOf is the KlinikeBench part of a view; the zero View for a view
// without one.
func ViewOf(v clinic.DoctorView) View {
	kv, _ := v.Ext.(View) // another benchmark's view has no tools to show
	return kv
}

// ToolSpec is a tool the doctor may call: a name, what it does, and its
// arguments as a JSON schema (§2.2 and appendix B.1: the tool definitions
// the agent receives).
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolResult is one tool call and what came back.
type ToolResult struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Status    clinic.Status   `json:"status"`
	Text      string          `json:"text,omitempty"`
}
