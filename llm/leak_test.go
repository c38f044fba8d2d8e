package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// TestDoctorPromptNeverLeaks plays every case of the synthetic corpus with the
// built-in doctor and renders the model doctor's prompt before every turn: it
// must never contain a fact not yet told, a result not yet returned, the
// diagnosis, or a rubric point, unless the encounter itself revealed it.
// Memory cards are a legitimate channel (learned from earlier cases) and are
// left out here.
func TestDoctorPromptNeverLeaks(t *testing.T) {
	ctx := context.Background()
	n := 0
	for _, split := range synth.Splits {
		for _, c := range synth.Generate(7)[split] {
			ep := episode.New(c, settings.Default().Episode, medevoeval.Rules(), episode.BuiltinRoles())
			for !ep.Done() {
				v := ep.View(nil, []string{"ASK onset WHEN chest pain: a rule"})
				msgs, err := llm.DoctorPrompt(v)
				require.NoError(t, err)
				prompt := msgs[0].Content + "\n" + msgs[1].Content
				revealed := revealedText(v)
				told := map[string]bool{}
				for _, ev := range ep.Events() {
					for _, id := range ev.RevealedFacts {
						told[id] = true
					}
				}
				for _, f := range c.Patient.Facts {
					if !told[f.ID] && !strings.Contains(revealed, f.Text) {
						require.NotContains(t, prompt, f.Text, "%s: unrevealed fact %s", c.ID, f.ID)
					}
				}
				for _, tv := range c.Exam.Tests {
					if len(tv.Result) >= 12 && !strings.Contains(revealed, tv.Result) {
						require.NotContains(t, prompt, tv.Result, "%s: unrevealed result of %s", c.ID, tv.Name)
					}
				}
				for _, f := range c.Exam.Findings {
					if !strings.Contains(revealed, f.Text) {
						require.NotContains(t, prompt, f.Text, "%s: unrevealed finding", c.ID)
					}
				}
				names := append([]string{c.Manager.Diagnosis.Name}, c.Manager.Diagnosis.Acceptable...)
				for _, dx := range names {
					if !textmatch.ContainsPhrase(revealed, dx) {
						require.False(t, textmatch.ContainsPhrase(prompt, dx), "%s: the diagnosis %q is in the prompt", c.ID, dx)
					}
				}
				for _, p := range append(append([]string(nil), c.Manager.Evidence...), c.Manager.Management...) {
					if !strings.Contains(strings.ToLower(revealed), strings.ToLower(p)) {
						require.NotContains(t, strings.ToLower(prompt), strings.ToLower(p), "%s: rubric point in the prompt", c.ID)
					}
				}
				dec, err := actor.Builtin{}.Decide(ctx, v)
				require.NoError(t, err)
				_, err = ep.Step(ctx, episode.StepInput{Output: dec.Output})
				require.NoError(t, err)
				n++
			}
		}
	}
	t.Logf("%d doctor prompts checked", n)
}

func revealedText(v clinic.DoctorView) string {
	var b strings.Builder
	b.WriteString(v.OpeningComplaint + "\n" + v.Demographics.Text + "\n")
	for _, ex := range v.Exchanges {
		b.WriteString(ex.Answer + "\n")
	}
	for _, r := range v.Results {
		b.WriteString(r.Text + "\n")
	}
	return b.String()
}
