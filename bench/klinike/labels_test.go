package klinike_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

// TestGradeToolCalls labels each kind of call in a tool sandbox.
func TestGradeToolCalls(t *testing.T) {
	events := []clinic.Event{
		{Turn: 0, Action: clinic.ToolCall, Tool: "order_imaging", Arguments: []byte(`{"modality":"PET"}`), Status: clinic.StatusInvalid, Reply: "at /modality: ..."},
		{Turn: 1, Action: clinic.ToolCall, Tool: "order_imaging", Arguments: []byte(`{"modality":"CT","region":"abdomen"}`), Status: clinic.StatusReturned, Reply: "ct abdomen: aneurysm of 6 cm"},
		{Turn: 2, Action: clinic.ToolCall, Tool: "prescribe_medication", Arguments: []byte(`{"drug":"amoxicillin","dose":"500 mg","route":"oral"}`), Status: clinic.StatusReturned, Reply: "Prescription recorded"},
		{Turn: 3, Action: clinic.ToolCall, Tool: "get_patient_vitals", Arguments: []byte(`{}`), Status: clinic.StatusReturned, Reply: "BP 150/90 mmHg"},
		{Turn: 4, Action: clinic.ToolCall, Tool: "record_diagnosis", Arguments: []byte(`{"diagnosis":"AAA"}`), Status: clinic.StatusFinalized},
	}
	in := grader.ProcessInput{Events: events, Final: clinic.FinalOutput{Diagnosis: []string{"AAA"}}, Outcome: grader.Outcome{S: 0}}
	key := &grader.Key{Bench: &klinike.Key{Calls: []string{"order_imaging(modality=CT, region=abdomen)"}, Avoid: []string{"prescribe_medication(drug=amoxicillin)"}}}
	labels := func(g grader.ProcessGrade) []grader.Label {
		var out []grader.Label
		for _, a := range g.Actions {
			out = append(out, a.Label)
		}
		return out
	}
	withKey := grader.GradeProcess(in, key, klinike.Benchmark{})
	require.Equal(t, []grader.Label{grader.Inefficient, grader.HighYield, grader.CriticalError, grader.LowYield, grader.LowYield}, labels(withKey))
	require.Equal(t, `order_imaging {"modality":"CT","region":"abdomen"}`, withKey.Actions[1].Target, "the call with its arguments")
	require.Contains(t, withKey.Actions[2].Rationale, "prescribe_medication(drug=amoxicillin)")
	in.Outcome = grader.Outcome{S: 1, Pass: true}
	scoreOnly := grader.GradeProcess(in, nil, klinike.Benchmark{})
	require.Equal(t, []grader.Label{grader.Inefficient, grader.LowYield, grader.LowYield, grader.LowYield, grader.HighYield}, labels(scoreOnly),
		"without the key only the outcome and the refusals speak")
}
