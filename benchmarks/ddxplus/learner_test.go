package ddxplus_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/textmatch"
)

// TestTheLearnerGetsCorrectnessOnly: under StreamBench's protocol what a
// learning method reads of an episode (runner.EvolverInput) is the profile,
// the doctor's answer and whether it was right: no probability of the
// differential, and no pathology of it that the profile does not name and
// the doctor did not answer; the write-back a method would get is none.
func TestTheLearnerGetsCorrectnessOnly(t *testing.T) {
	ctx := context.Background()
	d := runner.Deps{Bench: ddxplus.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: run(ddxplus.ModeStream)}
	for _, c := range sample(t)[:20] {
		m := runner.Meta{RunID: "r", EpisodeID: "e", Number: 1, Pass: 1}
		tr, err := runner.Play(ctx, c, d, m)
		require.NoError(t, err)
		require.Nil(t, runner.WriteBack(d.Bench, &c, tr, d.Settings), "score-only: no key for the learner")
		pg, err := grader.BuiltinProcessGrader{}.GradeProcess(ctx, runner.ProcessInput(tr, d.Settings), nil)
		require.NoError(t, err)
		in, err := runner.EvolverInput(c, tr, pg, m, d)
		require.NoError(t, err)
		require.Equal(t, ddxplus.Profile(c.Patient.Demographics, ddxplus.RecordOf(&c).Findings), in.Opening, "the input x_t is the whole profile")
		b, err := json.Marshal(in)
		require.NoError(t, err)
		text := " " + textmatch.Normalize(string(b)) + " "
		for _, w := range ddxplus.KeyOf(&c).Differential {
			if w.Pathology == tr.Final.Diagnosis[0] || textmatch.ContainsPhrase(in.Opening, w.Pathology) {
				continue
			}
			require.NotContains(t, text, " "+textmatch.Normalize(w.Pathology)+" ", "case %s", c.ID)
		}
		require.False(t, strings.Contains(string(b), "probability"), "case %s", c.ID)
	}
}
