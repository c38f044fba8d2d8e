package gpagent_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// gpInput is a GP episode as the evolver sees it: a question that showed a
// red flag, an examination, and the terminal action.
func gpInput(final clinic.Event, s float64) evolver.Input {
	final.Turn = 2
	events := []clinic.Event{
		{Turn: 0, Action: clinic.Ask, Question: "Any other symptoms?", Topic: clinic.TopicAssociated, Status: clinic.StatusReturned,
			Reply: "There is a red swelling behind the ear and the ear sticks out.", RevealedFacts: []string{"rf1"}},
		gpagent.WithStep(clinic.Event{Turn: 1, Action: gpagent.BodyExam, Status: clinic.StatusReturned, Reply: "Tender boggy swelling over the mastoid with the ear pushed forward."}, gpagent.Step{Target: "ent"}),
		final,
	}
	in := evolver.Input{Run: "r", Pass: 1, Stage: 1, Episode: 3, CaseID: "gp-0007", Opening: "My son has earache and a temperature.",
		Events: events, Outcome: grader.Outcome{S: s, Pass: s >= 0.7}, WriteCards: true}
	if final.Final != nil {
		in.Final = *final.Final
	}
	in.Forbidden = evolver.Forbidden{IDs: []string{"gp-0007"}, Revealed: []string{in.Opening, events[0].Reply, events[1].Reply}}
	return in
}

func gradeInput(in evolver.Input, key *grader.Key) grader.ProcessGrade {
	return grader.GradeProcess(grader.ProcessInput{Events: in.Events, Final: in.Final, Outcome: in.Outcome}, key, gpagent.Benchmark{})
}

var mastoiditis = &clinic.Referral{Needed: true, Destination: "ENT", Urgency: "emergency",
	RedFlags: []string{"red swelling behind the ear", "swelling over the mastoid with the ear pushed forward"}}

// TestReferralCards checks the cards a GP episode writes about red flags and
// referral (the write-back, and score-only).
func TestReferralCards(t *testing.T) {
	treat := clinic.Event{Action: gpagent.Treat, Status: clinic.StatusFinalized, Final: ending(clinic.FinalOutput{Diagnosis: []string{"Acute otitis media"}, Plan: []string{"amoxicillin"}}, gpagent.Ending{Disposition: gpagent.PathwayManage})}
	refer := clinic.Event{Action: gpagent.Refer, Status: clinic.StatusFinalized, Final: ending(clinic.FinalOutput{}, gpagent.Ending{Disposition: gpagent.PathwayRefer, Destination: "ENT", Urgency: "emergency"})}
	cfg := settings.Default().Evolver
	cfg.RuleBudget = 0
	referKey := &grader.Key{Diagnosis: "Acute mastoiditis", Evidence: append([]string{"ear pain with fever"}, mastoiditis.RedFlags...),
		Management: []string{"same day ENT assessment"}, Referral: grader.ReferralMissed,
		Bench: gpagent.Key{Pathway: gpagent.PathwayRefer, Refer: mastoiditis}}

	t.Run("a missed referral, write-back", func(t *testing.T) {
		in := gpInput(treat, 0)
		in.Grade = gradeInput(in, referKey)
		out := evolver.Evolve(cfg, in, referKey, nil, gpagent.Benchmark{})
		require.Empty(t, out.Skipped)
		require.Len(t, out.Cards, 1)
		c := out.Cards[0]
		require.Equal(t, clinic.CardCorrection, c.Kind)
		require.Equal(t, "Acute mastoiditis", c.Diagnosis)
		require.Equal(t, mastoiditis.RedFlags, c.Evidence, "the red flags tell it from its manageable look-alike")
		dest, urgency, ok := gpagent.ParseReferAction(c.Action)
		require.True(t, ok)
		require.Equal(t, "ENT", dest)
		require.Equal(t, "emergency", urgency)
		require.Contains(t, c.Ask, clinic.TopicAssociated, "the topic whose answer showed a flag")
		require.Contains(t, c.Tests, "ent", "the examination that showed a flag")
		require.Contains(t, c.Text, "WITH RED FLAGS red swelling behind the ear")
		require.Contains(t, c.Text, "THEN REFER to ENT (emergency)")
		require.Contains(t, c.SearchText, "swelling over the mastoid")
	})
	t.Run("a needed referral made", func(t *testing.T) {
		in := gpInput(refer, 1)
		key := *referKey
		key.Referral = grader.ReferralCorrect
		in.Grade = gradeInput(in, &key)
		out := evolver.Evolve(cfg, in, &key, nil, gpagent.Benchmark{})
		require.Len(t, out.Cards, 1)
		require.Equal(t, gpagent.ReferAction("ENT", "emergency"), out.Cards[0].Action)
	})
	t.Run("an unneeded referral", func(t *testing.T) {
		in := gpInput(refer, 0)
		key := &grader.Key{Diagnosis: "Acute otitis media", Evidence: []string{"ear pain with fever"}, Referral: grader.ReferralUnneeded,
			Bench: gpagent.Key{Pathway: gpagent.PathwayManage, Refer: &clinic.Referral{Needed: false}}}
		in.Grade = gradeInput(in, key)
		out := evolver.Evolve(cfg, in, key, nil, gpagent.Benchmark{})
		require.Len(t, out.Cards, 1)
		require.Equal(t, gpagent.ManageAction, out.Cards[0].Action)
		require.Contains(t, out.Cards[0].Text, "AVOID referral: manageable in primary care")
	})
	t.Run("score-only, a referral with full marks", func(t *testing.T) {
		in := gpInput(refer, 1)
		in.Grade = gradeInput(in, nil)
		in.Grade.Actions[0].Label, in.Grade.Actions[1].Label = grader.HighYield, grader.HighYield
		out := evolver.Evolve(cfg, in, nil, nil, gpagent.Benchmark{})
		i := slices.IndexFunc(out.Cards, func(c clinic.Card) bool { _, _, ok := gpagent.ParseReferAction(c.Action); return ok })
		require.GreaterOrEqual(t, i, 0, "a referral card")
		require.Equal(t, []string{in.Events[0].Reply, in.Events[1].Reply}, out.Cards[i].Evidence, "its red flags are the high-yield findings")
	})
	t.Run("an episode without the workflow's own actions: unchanged", func(t *testing.T) {
		in := gpInput(clinic.Event{Action: clinic.Finalize, Status: clinic.StatusFinalized, Final: &clinic.FinalOutput{Diagnosis: []string{"x"}}}, 0)
		in.Events = []clinic.Event{in.Events[0], in.Events[2]}
		in.Grade = gradeInput(in, referKey)
		out := evolver.Evolve(cfg, in, referKey, nil, gpagent.Benchmark{})
		for _, c := range out.Cards {
			require.Empty(t, c.Action, "no referral on a MedEvoEval card")
		}
	})
}

// TestModelEvolverWritesReferralCards: in a GP episode that missed a needed
// referral, the model's card about the condition becomes a referral card
// (the red flags as evidence, where and how urgently to refer), as the
// built-in evolver's does (GPAgentBench §4).
func TestModelEvolverWritesReferralCards(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"edits":[],"cards":[{"kind":"correction","text":"earache with fever in a child: look behind the ear","diagnosis":"Acute mastoiditis"}]}`}
	}
	flags := []string{"red swelling behind the ear", "swelling over the mastoid with the ear pushed forward"}
	events := []clinic.Event{
		{Turn: 0, Action: clinic.Ask, Question: "Any other symptoms?", Topic: clinic.TopicAssociated, Status: clinic.StatusReturned,
			Reply: "There is a red swelling behind the ear and the ear sticks out.", RevealedFacts: []string{"rf1"}},
		gpagent.WithStep(clinic.Event{Turn: 1, Action: gpagent.BodyExam, Status: clinic.StatusReturned, Reply: "Tender boggy swelling over the mastoid with the ear pushed forward."}, gpagent.Step{Target: "ent"}),
		{Turn: 2, Action: gpagent.Treat, Status: clinic.StatusFinalized, Final: ending(clinic.FinalOutput{Diagnosis: []string{"Acute otitis media"},
			Plan: []string{"amoxicillin"}}, gpagent.Ending{Disposition: gpagent.PathwayManage})},
	}
	key := &grader.Key{Diagnosis: "Acute mastoiditis", Evidence: append([]string{"ear pain with fever"}, flags...),
		Management: []string{"same day ENT assessment"}, Referral: grader.ReferralMissed,
		Bench: gpagent.Key{Pathway: gpagent.PathwayRefer, Refer: &clinic.Referral{Needed: true, Destination: "ENT", Urgency: "emergency", RedFlags: flags}}}
	in := evolver.Input{Run: "r", Pass: 1, Stage: 1, Episode: 3, CaseID: "gp-0007", Opening: "My son has earache and a temperature.",
		Events: events, Final: *events[2].Final, WriteCards: true}
	in.Grade = grader.GradeProcess(grader.ProcessInput{Events: in.Events, Final: in.Final, Outcome: in.Outcome}, key, gpagent.Benchmark{})
	cfg := settings.Default().Evolver
	cfg.RuleBudget = 0
	out, err := llm.Evolver{C: modelClient(t, srv, "evolver", nil), Lessons: gpagent.Benchmark{}}.Evolve(context.Background(), cfg, in, key, nil)
	require.NoError(t, err)
	require.Empty(t, out.Skipped)
	var c *clinic.Card
	for i := range out.Cards {
		if out.Cards[i].Diagnosis == "Acute mastoiditis" {
			c = &out.Cards[i]
		}
	}
	require.NotNil(t, c, "the model's card is kept")
	dest, urgency, ok := gpagent.ParseReferAction(c.Action)
	require.True(t, ok, "a referral card, got action %q", c.Action)
	require.Equal(t, "ENT", dest)
	require.Equal(t, "emergency", urgency)
	require.Equal(t, flags, c.Evidence)
	require.Contains(t, c.Tests, "ent", "the examination that showed a flag")
	require.Contains(t, c.Text, "THEN REFER to ENT (emergency)")
}
