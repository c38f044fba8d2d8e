package ddxplus_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestModelDoctorStream: the model doctor sees the profile and every
// pathology numbered from 0, earlier patients as examples, and its
// "<number>. <pathology>" reply is the answer; a malformed reply is repaired
// once.
func TestModelDoctorStream(t *testing.T) {
	c := sample(t)[0]
	e, err := ddxplus.Start(c, run(ddxplus.ModeStream), nil)
	require.NoError(t, err)
	card := clinic.CardHint{ID: "k", Kind: clinic.CardExample, Text: "Patient: 30-year-old female.\nDo you have a cough? Yes.\nAnswer: URTI (feedback: correct)", Diagnosis: "URTI"}
	srv := llmtest.New(t)
	replies := []string{`{"action": "ASK", "question": "fever?"}`, `{"action": "FINALIZE", "diagnosis": ["34. Pneumonia"]}`}
	srv.Script = func(n int, _ llmtest.Request) *llmtest.Reply { return &llmtest.Reply{Status: 200, Content: replies[n]} }
	dec, err := ddxplus.ModelDoctor{C: srv.Client(t, "doctor", nil)}.Decide(context.Background(), e.View([]clinic.CardHint{card}, nil))
	require.NoError(t, err)
	require.Equal(t, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"34. Pneumonia"}}, dec.Output)

	reqs := srv.Requests()
	require.Len(t, reqs, 2, "ASK is not offered in stream mode: one repair")
	user := reqs[0].User
	require.Contains(t, user, "0. Acute COPD exacerbation / infection\n")
	require.Contains(t, user, "34. Pneumonia\n")
	require.Contains(t, user, "48. Whooping cough\n")
	require.Contains(t, user, "Answer: URTI (feedback: correct)")
	require.Contains(t, user, "and whether it was right")
	require.Contains(t, user, "The patient's profile:\nPatient: 8-year-old male.\nDo you have pain somewhere")
	require.Contains(t, reqs[0].System, "Answer at once.")
	require.NotContains(t, strings.ToLower(reqs[0].System+user), "differential", "StreamBench asks for one pathology")
}

// TestModelDoctorInteractive: interactively the model sees the opening
// complaint and the conversation, and may ask.
func TestModelDoctorInteractive(t *testing.T) {
	c := sample(t)[0]
	e, err := ddxplus.Start(c, run(ddxplus.ModeInteractive), nil)
	require.NoError(t, err)
	step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you have a fever?"})
	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"action": "ASK", "question": "Do you have a cough?", "working_diagnoses": ["34. Pneumonia"]}`}
	}
	dec, err := ddxplus.ModelDoctor{C: srv.Client(t, "doctor", nil)}.Decide(context.Background(), e.View(nil, nil))
	require.NoError(t, err)
	require.Equal(t, clinic.Ask, dec.Output.Action)
	user := srv.Requests()[0].User
	require.Contains(t, user, `What the patient said first: "I am experiencing shortness of breath`)
	require.Contains(t, user, "- Q: Do you have a fever?\n  A: Yes.")
	require.Contains(t, user, "This is turn 2 of 10.")
	require.NotContains(t, user, "Do you have pain somewhere", "the unasked evidences stay hidden")
}
