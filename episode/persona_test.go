package episode_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

// TestPaperPersonaDimensions checks the built-in patient on GPAgentBench's
// persona dimensions (§4.1), each deterministic by the case and the question:
// a highly disoriented patient answers some questions off the point
// (revealing nothing) and the same question the same way; low anamnestic
// fidelity blurs amounts in some facts; the three language levels say a fact
// more or less fully.
func TestPaperPersonaDimensions(t *testing.T) {
	view := clinic.PatientView{OpeningComplaint: "I have a cough.", Facts: []clinic.Fact{
		{ID: "f1", Text: "It started three days ago; it keeps me awake (mostly at night), and the phlegm is green.", Topics: []string{clinic.TopicOnset}},
		{ID: "f2", Text: "I have lost about 4 kg over two months.", Topics: []string{clinic.TopicAssociated}},
		{ID: "f3", Text: "I smoke ten a day.", Topics: []string{clinic.TopicSocial}},
		{ID: "f4", Text: "My chest hurts (a dull ache) when I cough, then it settles.", Topics: []string{clinic.TopicCharacter}},
	}}
	ask := func(p clinic.Persona, q string) episode.PatientReply {
		v := view
		v.Persona = p
		rep, err := episode.BuiltinPatient{}.Answer(context.Background(), episode.PatientQuery{View: v, Question: q})
		require.NoError(t, err)
		return rep
	}
	t.Run("disorientation", func(t *testing.T) {
		high := clinic.Persona{Personality: "neutral", Recall: "high", Disorientation: "high"}
		off := 0
		for i := range 30 {
			q := fmt.Sprintf("When did it start, question %d?", i)
			rep := ask(high, q)
			require.Equal(t, rep, ask(high, q), "deterministic")
			normal := ask(clinic.Persona{Personality: "neutral", Recall: "high", Disorientation: "normal"}, q)
			require.Equal(t, []string{"f1"}, normal.FactIDs)
			if len(rep.FactIDs) == 0 {
				off++
				require.Equal(t, episode.UnclearQuestion, rep.Unanswered)
			} else {
				require.True(t, strings.HasPrefix(rep.Text, "Let me see... sorry, I get muddled."), "high disorientation is muddled too")
			}
		}
		require.True(t, off >= 5 && off <= 15, "about one question in three goes off the point: %d of 30", off)
		moderate := ask(clinic.Persona{Personality: "neutral", Recall: "high", Disorientation: "moderate"}, "When did it start?")
		require.Equal(t, []string{"f1"}, moderate.FactIDs, "moderate disorientation muddles but answers")
		require.Equal(t, moderate, ask(clinic.Persona{Personality: "neutral", Recall: "high", Clarity: "confused"}, "When did it start?"),
			"an older corpus's confused clarity is moderate disorientation")
	})
	t.Run("anamnestic fidelity", func(t *testing.T) {
		low := clinic.Persona{Personality: "neutral", Recall: "low"}
		held := map[string]bool{"f1": true, "f2": true, "f3": true, "f4": true} // asked before: told now
		blurred := 0
		for _, q := range []string{"When did it start?", "Have you lost weight?", "Do you smoke?"} {
			v := view
			v.Persona = low
			rep, err := episode.BuiltinPatient{}.Answer(context.Background(), episode.PatientQuery{View: v, Question: q, Held: held})
			require.NoError(t, err)
			require.Len(t, rep.FactIDs, 1)
			if strings.Contains(rep.Text, "I'm not sure") {
				blurred++
				require.Contains(t, rep.Text, "some")
				require.NotRegexp(t, `\b(three|4|two|ten)\b`, rep.Text, "amounts are vague")
			}
			high := ask(clinic.Persona{Personality: "neutral", Recall: "high"}, q)
			require.NotContains(t, high.Text, "I'm not sure", "high fidelity tells facts as they are")
		}
		require.Positive(t, blurred, "low fidelity blurs some facts")
		require.Less(t, blurred, 3, "and tells others as they are")
	})
	t.Run("language proficiency", func(t *testing.T) {
		say := func(level string) string {
			return ask(clinic.Persona{Personality: "neutral", Recall: "high", Language: level}, "When did it start?").Text
		}
		require.Equal(t, "It started three days ago; it keeps me awake (mostly at night), and the phlegm is green.", say("advanced"))
		require.Equal(t, say("advanced"), say("fluent"))
		require.Equal(t, "It started three days ago.", say("intermediate"))
		require.Equal(t, "It started three days ago.", say("basic"))
		require.Equal(t, say("basic"), say("limited"))
		rep := ask(clinic.Persona{Personality: "neutral", Recall: "high", Language: "intermediate"}, "Have you lost weight?")
		require.Equal(t, "I have lost about 4 kg over two months.", rep.Text)
		pain := func(level string) string {
			return ask(clinic.Persona{Personality: "neutral", Recall: "high", Language: level}, "Can you describe what it feels like?").Text
		}
		require.Equal(t, "My chest hurts when I cough, then it settles.", pain("intermediate"), "asides in brackets dropped")
		require.Equal(t, "My chest hurts (a dull ache) when I cough.", pain("basic"), "the first clause only")
	})
}
