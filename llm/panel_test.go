package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestPanelCountsUsePerRole runs one turn of the model panel: five calls,
// one per role, each accounted under doctor.<role>; the roles' notes reach
// the later roles' prompts, and the reconciled action is the checklist's.
func TestPanelCountsUsePerRole(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
		switch {
		case strings.Contains(r.System, "Dr Hypothesis"):
			return &llmtest.Reply{Status: 200, Content: `{"differential":["migraine","tension headache"],"reason":"throbbing, one-sided"}`}
		case strings.Contains(r.System, "Dr Checklist"):
			return &llmtest.Reply{Status: 200, Content: `{"questions":["Any aura before the pain?"],"reason":"history first"}`}
		}
		return &llmtest.Reply{Status: 200, Content: `{"tests":["ct head"],"reason":"noted"}`}
	}
	clients := map[string]*llm.Client{}
	for _, role := range actor.PanelRoles {
		c := srv.Client(t, "doctor", nil)
		c.Role = "doctor." + role
		clients[role] = c
	}
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	v := clinic.DoctorView{OpeningComplaint: "headache for two days", Actions: []string{"ASK", "REQUEST_TEST", "FINALIZE"}, FinalFields: []string{"diagnosis"}, MaxTurns: 10}
	d, err := llm.PanelDoctor(clients, nil).Decide(ctx, v)
	require.NoError(t, err)
	require.Equal(t, clinic.Ask, d.Output.Action)
	require.Equal(t, "Any aura before the pain?", d.Output.Question)
	require.Equal(t, []string{"migraine", "tension headache"}, d.Output.WorkingDiagnoses)
	by := tally.ByRole()
	require.Len(t, by, 5)
	for _, role := range actor.PanelRoles {
		require.Equal(t, 1, by["doctor."+role].Calls, role)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 5)
	require.Contains(t, reqs[4].User, "hypothesis: differential migraine; tension headache.", "the checklist reads the notes before it")
}

// ownPanel is a benchmark with a panel prompt of its own (llm.PanelFormat).
type ownPanel struct{}

func (ownPanel) PanelPrompt(role string, v clinic.DoctorView, _ []actor.PanelNote) ([]llm.Message, error) {
	return []llm.Message{llm.System("own panel prompt for " + role), llm.User(v.OpeningComplaint)}, nil
}

// TestPanelDoctorFor: a benchmark's panel prompt (llm.PanelFormat) is what
// every role of its model panel renders; without one, the shared prompt.
func TestPanelDoctorFor(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"differential":["migraine"],"ready":true,"diagnosis":"migraine","reason":"x"}`}
	}
	clients := map[string]*llm.Client{}
	for _, role := range actor.PanelRoles {
		clients[role] = srv.Client(t, "doctor", nil)
	}
	v := clinic.DoctorView{OpeningComplaint: "headache for two days", Actions: []string{"ASK", "REQUEST_TEST", "FINALIZE"}, FinalFields: []string{"diagnosis"}, MaxTurns: 10}
	_, err := llm.PanelDoctorFor(ownPanel{}, clients, nil).Decide(context.Background(), v)
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 5)
	for i, role := range actor.PanelRoles {
		require.Equal(t, "own panel prompt for "+role, reqs[i].System)
	}
	_, err = llm.PanelDoctorFor(struct{}{}, clients, nil).Decide(context.Background(), v)
	require.NoError(t, err)
	title, _ := llm.PanelDuty(actor.Hypothesis)
	require.Contains(t, srv.Requests()[5].System, "You are "+title, "no PanelFormat: the shared prompt")
}
