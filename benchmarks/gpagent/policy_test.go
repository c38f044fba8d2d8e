package gpagent_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/runner"
)

// TestGPDoctorWithoutMemory plays GP cases with the built-in doctor and no
// memory: a structured history, examinations, then diagnose and treat within
// the turn limit; it never refers and never tries a masked action.
func TestGPDoctorWithoutMemory(t *testing.T) {
	t.Parallel()
	cp, err := benchtest.Library(gpagent.Benchmark{}).Load("builtin:gp@7")
	require.NoError(t, err)
	d := runner.Deps{Bench: gpagent.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: gpSettings()}
	for _, c := range cp.Cases[:20] {
		tr, err := runner.Play(context.Background(), c, d, runner.Meta{RunID: "r", EpisodeID: "e/" + c.ID, Number: 1})
		require.NoError(t, err)
		require.Equal(t, clinic.EndFinalized, tr.Termination, c.ID)
		require.Equal(t, gpagent.PathwayManage, gpagent.EndingOf(tr.Final).Disposition, c.ID)
		n := len(tr.Events)
		require.Equal(t, gpagent.Diagnose, tr.Events[n-2].Action)
		require.Equal(t, gpagent.Treat, tr.Events[n-1].Action)
		for _, ev := range tr.Events {
			require.NotEqual(t, clinic.StatusMasked, ev.Status, c.ID)
			require.NotEqual(t, gpagent.Refer, ev.Action, c.ID)
		}
		require.Equal(t, gpagent.BodyExam, tr.Events[n-3].Action, "examinations after the history")
	}
}

// TestGPDoctorRefersOnRedFlags gives the doctor a referral card whose red
// flags the conversation shows: it refers to the card's destination with its
// urgency. Without the flags shown, it asks about their topics instead; in
// the diagnosed state it treats with the plan of its diagnosis's cards.
func TestGPDoctorRefersOnRedFlags(t *testing.T) {
	card := clinic.CardHint{ID: "k1", Kind: clinic.CardCorrection, Similarity: 0.6, Diagnosis: "Microbial keratitis",
		Evidence: []string{"contact lenses with a very painful eye and blurred sight", "white spot on the cornea"},
		Action:   gpagent.ReferAction("ophthalmology", "emergency"), Ask: []string{clinic.TopicAssociated}}
	manage := clinic.CardHint{ID: "k2", Kind: clinic.CardSuccess, Similarity: 0.7, Diagnosis: "Bacterial conjunctivitis",
		Evidence: []string{"red eye with purulent discharge"}, Plan: []string{"bathe lids"}}
	v := clinic.DoctorView{OpeningComplaint: "My eye is red.", MaxTurns: 10, Turn: 3, Phase: "collecting_evidence",
		Actions: []string{"ASK", "BODY_EXAM", "REQUEST_TEST", "DIAGNOSE", "REFER"}, Ext: gpagent.View{Masked: []string{"TREAT"}, ExamTargets: []string{"vital signs", "eye"}},
		Cards:     []clinic.CardHint{card, manage},
		Exchanges: []clinic.Exchange{{Question: "When did this start?", Topic: clinic.TopicOnset, Answer: "Two days ago.", Answered: true}}}

	dec, err := gpagent.Builtin{}.Decide(context.Background(), v)
	require.NoError(t, err)
	require.Equal(t, clinic.Ask, dec.Output.Action, "the flags are not shown yet: ask about their topics")
	require.Contains(t, actor.Questions(dec.Output.Topic), dec.Output.Question, "in the doctor's own words")

	shown := v
	shown.Exchanges = append(shown.Exchanges, clinic.Exchange{Question: "Anything else?", Topic: clinic.TopicAssociated,
		Answer: "I wear contact lenses, the eye is very painful, light hurts and my sight is blurred.", Answered: true})
	shown.Results = []clinic.Result{{Test: "eye", Status: clinic.StatusReturned, Text: "White spot on the cornea with an epithelial defect."}}
	dec, err = gpagent.Builtin{}.Decide(context.Background(), shown)
	require.NoError(t, err)
	require.Equal(t, gpagent.Refer, dec.Output.Action)
	require.Equal(t, "ophthalmology", gpagent.OutputOf(dec.Output).Destination)
	require.Equal(t, "emergency", gpagent.OutputOf(dec.Output).Urgency)

	denied := v
	denied.Exchanges = append(denied.Exchanges, clinic.Exchange{Question: "Anything else?", Topic: clinic.TopicAssociated,
		Answer: "I do not wear contact lenses and my sight is not blurred.", Answered: true})
	denied.Results = []clinic.Result{{Test: "eye", Status: clinic.StatusReturned, Text: "Normal cornea, no white spot."}}
	denied.Turn = 8
	dec, err = gpagent.Builtin{}.Decide(context.Background(), denied)
	require.NoError(t, err)
	require.Equal(t, gpagent.Diagnose, dec.Output.Action, "a denied red flag is not shown")
	require.Equal(t, []string{"Bacterial conjunctivitis"}, dec.Output.Diagnosis, "the candidate no referral card claims")

	diagnosed := v
	diagnosed.Phase, diagnosed.Actions = "diagnosed", []string{"TREAT"}
	diagnosed.Ext = gpagent.View{Masked: []string{"ASK", "DIAGNOSE"}, ExamTargets: []string{"vital signs", "eye"}, Diagnosis: []string{"Bacterial conjunctivitis"}}
	dec, err = gpagent.Builtin{}.Decide(context.Background(), diagnosed)
	require.NoError(t, err)
	require.Equal(t, gpagent.Treat, dec.Output.Action)
	require.Equal(t, []string{"bathe lids"}, dec.Output.Plan)
}

// TestGPDoctorAsksPatientFacingQuestions plays GP cases twice with memory and
// write-back, so the second pass meets referral cards: every question is one
// of the doctor's own, never a card's words.
func TestGPDoctorAsksPatientFacingQuestions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := local.Open(ctx, filepath.Join(t.TempDir(), "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	d := runner.Deps{Bench: gpagent.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: gpSettings(), Memory: st}
	own := map[string]bool{}
	for _, topic := range clinic.Topics {
		for _, q := range actor.Questions(topic) {
			own[q] = true
		}
	}
	cp, err := benchtest.Library(gpagent.Benchmark{}).Load("builtin:gp@7")
	require.NoError(t, err)
	var rules []clinic.Rule
	n, refers := 0, 0
	for pass := 1; pass <= 2; pass++ {
		for _, c := range cp.Cases[:60] {
			n++
			m := runner.Meta{RunID: "gp", EpisodeID: fmt.Sprintf("gp/e%d", n), Number: n, Pass: pass, MemoryRuns: []string{"gp"}, Rules: runner.RuleTexts(rules)}
			tr, err := runner.Play(ctx, c, d, m)
			require.NoError(t, err)
			l, err := runner.Learn(ctx, d, c, tr, m, rules)
			require.NoError(t, err)
			rules = l.Rules
			for _, ev := range tr.Events {
				if ev.Action == clinic.Ask {
					require.True(t, own[ev.Question], "question %q is not one of the doctor's own", ev.Question)
				}
				if ev.Action == gpagent.Refer {
					refers++
				}
			}
		}
	}
	require.Positive(t, refers, "the second pass refers")
}
