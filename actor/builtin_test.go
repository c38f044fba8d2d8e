package actor_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// TestDoctorAsksPatientFacingQuestions plays the AgentClinic cases twice in a
// row with memory (write-back), so the second pass meets cards for every case,
// whose evidence key points read like "Heart Rate: 120/min". Every question the
// doctor asks the patient must be one of its own patient-facing questions: no
// digit, no colon, no words copied from a card.
func TestDoctorAsksPatientFacingQuestions(t *testing.T) {
	ctx := context.Background()
	st, err := local.Open(ctx, filepath.Join(t.TempDir(), "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: settings.Default(), Memory: st}
	own := map[string]bool{}
	for _, topic := range clinic.Topics {
		for _, q := range actor.Questions(topic) {
			own[q] = true
		}
	}
	cases := corpustest.AgentClinic(t)
	var rules []clinic.Rule
	var questions []string
	n := 0
	for pass := 1; pass <= 2; pass++ {
		for _, c := range cases {
			n++
			m := runner.Meta{RunID: "ac", EpisodeID: fmt.Sprintf("ac/e%d", n), Number: n, Pass: pass, MemoryRuns: []string{"ac"}, Rules: runner.RuleTexts(rules)}
			tr, err := runner.Play(ctx, c, d, m)
			require.NoError(t, err)
			l, err := runner.Learn(ctx, d, c, tr, m, rules)
			require.NoError(t, err)
			rules = l.Rules
			for _, ev := range tr.Events {
				if ev.Action == clinic.Ask {
					questions = append(questions, ev.Question)
				}
			}
		}
	}
	cards, err := st.List(ctx, memory.Filter{Runs: []string{"ac"}})
	require.NoError(t, err)
	require.NotEmpty(t, cards)
	var cardTexts []string
	for _, c := range cards {
		for _, s := range append(append(append([]string(nil), c.Evidence...), c.Plan...), c.Followup...) {
			if len(strings.Fields(s)) >= 2 {
				cardTexts = append(cardTexts, s)
			}
		}
	}
	require.Greater(t, len(questions), 2*len(cases))
	for _, q := range questions {
		require.NotContains(t, q, ":", "question %q", q)
		require.False(t, strings.ContainsAny(q, "0123456789"), "question %q has a digit", q)
		for _, s := range cardTexts {
			require.False(t, textmatch.ContainsPhrase(q, s), "question %q copies card text %q", q, s)
		}
		require.True(t, own[q], "question %q is not one of the doctor's own", q)
	}
}
