package klinike_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

// encounter plays the built-in doctor through a task with the given cards
// and rules and returns the events and the gates.
func encounter(t *testing.T, c clinic.Case, cards []clinic.CardHint, rules []string) ([]clinic.Event, clinic.Scores) {
	t.Helper()
	s := klinikeSettings()
	env := restore(t, c, s, episode.BuiltinRoles(), nil)
	for !env.Done() {
		dec, err := klinike.Doctor{}.Decide(context.Background(), env.View(cards, rules))
		require.NoError(t, err)
		_, err = env.Step(context.Background(), episode.StepInput{Output: dec.Output})
		require.NoError(t, err)
	}
	final, _ := env.Final()
	sc, err := klinike.Score(context.Background(), &c, s, env.Events(), final, nil)
	require.NoError(t, err)
	return env.Events(), sc
}

func calls(events []clinic.Event) []string {
	var out []string
	for _, ev := range events {
		if ev.Action == klinike.ToolCall {
			out = append(out, callOf(ev).Tool)
		}
	}
	return out
}

// TestDoctorInToolSandbox: without memory the built-in doctor takes a
// history, checks the chart and records a syndromic diagnosis; with a card
// carrying the task's calls and diagnosis it makes those calls, asks the
// card's topics and records the card's diagnosis, passing every gate.
func TestDoctorInToolSandbox(t *testing.T) {
	var c clinic.Case
	for _, x := range klinike.Tasks(7)[klinike.SplitAll] {
		if len(sandboxOf(t, &x).Record.Allergies) == 0 && len(keyOf(t, &x).Calls()) >= 5 {
			c = x
			break
		}
	}
	require.NotEmpty(t, c.ID)
	t.Run("without memory", func(t *testing.T) {
		events, sc := encounter(t, c, nil, nil)
		require.Equal(t, clinic.Ask, events[0].Action, "a structured history first")
		require.Contains(t, calls(events), "get_patient_info")
		require.Equal(t, "record_diagnosis", calls(events)[len(calls(events))-1])
		for _, ev := range events {
			if ev.Action == klinike.ToolCall {
				require.NotEqual(t, clinic.StatusInvalid, ev.Status, "the doctor's calls fit the schemas: %s", ev.Reply)
			}
		}
		require.Zero(t, sc.Metrics["d"], "no memory, no diagnosis to name")
	})
	t.Run("with a card of the task's lesson", func(t *testing.T) {
		card := clinic.CardHint{ID: "k1", Kind: clinic.CardSuccess, Similarity: 0.9, Diagnosis: c.Manager.Diagnosis.Name,
			Ask: c.Manager.MustAsk, Calls: keyOf(t, &c).Calls(), Text: "lesson"}
		events, sc := encounter(t, c, []clinic.CardHint{card}, nil)
		require.Equal(t, 1.0, sc.Metrics["pass1"], "%v", sc.Metrics)
		last := events[len(events)-1]
		var args map[string]string
		require.NoError(t, json.Unmarshal(callOf(last).Arguments, &args))
		require.Equal(t, c.Manager.Diagnosis.Name, args["diagnosis"])
		require.LessOrEqual(t, len(events), 32)
	})
	t.Run("a CALL rule", func(t *testing.T) {
		rule := "CALL order_imaging(modality=CT, region=head): a rule for every presentation"
		events, _ := encounter(t, c, nil, []string{rule})
		found := false
		for _, ev := range events {
			found = found || (callOf(ev).Tool == "order_imaging" && string(callOf(ev).Arguments) == `{"modality":"CT","region":"head"}`)
		}
		exposed := false
		for _, tool := range sandboxOf(t, &c).Tools {
			exposed = exposed || tool == "order_imaging"
		}
		require.Equal(t, exposed, found, "the rule's call is made where the tool is exposed")
	})
}

// TestDoctorAvoidsChartedAllergy: a card's penicillin is not prescribed to a
// patient whose chart lists a penicillin allergy.
func TestDoctorAvoidsChartedAllergy(t *testing.T) {
	v := clinic.DoctorView{OpeningComplaint: "Sore throat", Actions: []string{"TOOL_CALL"}, Ext: klinike.View{StepsLeft: 10,
		Tools: []klinike.ToolSpec{{Name: "prescribe_medication", Parameters: json.RawMessage(`{"type":"object","required":["drug","dose","route"],
			"properties":{"drug":{"type":"string"},"dose":{"type":"string"},"route":{"type":"string","enum":["oral","topical"]}}}`)},
			{Name: "record_diagnosis", Parameters: json.RawMessage(`{"type":"object"}`)}},
		ToolResults: []klinike.ToolResult{{Tool: "get_patient_allergies", Arguments: json.RawMessage(`{}`), Status: clinic.StatusReturned,
			Text: "I am allergic to penicillin; it gave me a rash"}}},
		Cards: []clinic.CardHint{{ID: "k", Kind: clinic.CardSuccess, Similarity: 0.8, Diagnosis: "Streptococcal pharyngitis",
			Calls: []string{"prescribe_medication(drug=phenoxymethylpenicillin, route=oral)", "prescribe_medication(drug=paracetamol)"}}}}
	dec, err := klinike.Doctor{}.Decide(context.Background(), v)
	require.NoError(t, err)
	require.Equal(t, "prescribe_medication", klinike.CallOf(dec.Output.Ext).Tool)
	require.JSONEq(t, `{"drug":"paracetamol","dose":"as clinically indicated","route":"oral"}`, string(klinike.CallOf(dec.Output.Ext).Arguments),
		"the penicillin is left out; missing required arguments are filled")
}
