package klinike_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestGradeToolCalls labels each kind of call in a tool sandbox.
func TestGradeToolCalls(t *testing.T) {
	events := []clinic.Event{
		toolEvent(clinic.Event{Turn: 0, Status: clinic.StatusInvalid, Reply: "at /modality: ..."}, "order_imaging", `{"modality":"PET"}`),
		toolEvent(clinic.Event{Turn: 1, Status: clinic.StatusReturned, Reply: "ct abdomen: aneurysm of 6 cm"}, "order_imaging", `{"modality":"CT","region":"abdomen"}`),
		toolEvent(clinic.Event{Turn: 2, Status: clinic.StatusReturned, Reply: "Prescription recorded"}, "prescribe_medication", `{"drug":"amoxicillin","dose":"500 mg","route":"oral"}`),
		toolEvent(clinic.Event{Turn: 3, Status: clinic.StatusReturned, Reply: "BP 150/90 mmHg"}, "get_patient_vitals", `{}`),
		toolEvent(clinic.Event{Turn: 4, Status: clinic.StatusFinalized}, "record_diagnosis", `{"diagnosis":"AAA"}`),
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

// TestModelGraderReadsCalls: the model process grader's prompt spells each
// call with its arguments, and its labels name the call as their target.
func TestModelGraderReadsCalls(t *testing.T) {
	srv := llmtest.New(t)
	g := llm.ProcessGrader{C: srv.Client(t, "grader", nil), Labels: klinike.Benchmark{}, Bench: klinike.Benchmark{}}
	events := []clinic.Event{
		{Turn: 0, Action: clinic.Ask, Question: "When did it start?", Status: clinic.StatusReturned, Reply: "Two days ago."},
		toolEvent(clinic.Event{Turn: 1, Status: clinic.StatusReturned, Reply: "ct abdomen: aneurysm"}, "order_imaging", `{"modality":"CT","region":"abdomen"}`),
	}
	pg, err := g.GradeProcess(context.Background(), grader.ProcessInput{Events: events}, nil)
	require.NoError(t, err)
	require.Contains(t, srv.Requests()[0].User, "0. ASK When did it start? -> returned: Two days ago.\n"+
		`1. TOOL_CALL order_imaging {"modality":"CT","region":"abdomen"} -> returned: ct abdomen: aneurysm`)
	require.Equal(t, `order_imaging {"modality":"CT","region":"abdomen"}`, pg.Actions[1].Target)
	require.Equal(t, "When did it start?", pg.Actions[0].Target)
}
