package medinquire_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// TestMedInquireDoctorSeesNoTestList plays Med-Inquire episodes with a model
// doctor on the fake endpoint: no prompt holds a list of tests (EvoClinician
// §3: the actor proposes tests by free text), while MedEvoEval's prompt does.
func TestMedInquireDoctorSeesNoTestList(t *testing.T) {
	srv := llmtest.New(t)
	c := synth.Generate(7)["stream"][0]
	for _, b := range []bench.Benchmark{medinquire.Benchmark{}, medevoeval.Benchmark{}} {
		profile := b.Name()
		t.Run(profile, func(t *testing.T) {
			before := len(srv.Requests())
			set := settings.Default()
			set.Benchmark = profile
			roles := runner.BuiltinRoles()
			roles.Doctor = llm.Doctor{C: srv.Client(t, "doctor", nil)}
			tr, err := runner.Play(context.Background(), c, runner.Deps{Bench: b, Roles: roles, Settings: set}, runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
			require.NoError(t, err)
			require.Equal(t, clinic.EndFinalized, tr.Termination)
			reqs := srv.Requests()[before:]
			require.NotEmpty(t, reqs)
			for _, r := range reqs {
				prompt := r.System + "\n" + r.User
				listed := strings.Contains(prompt, "Test catalog:") || strings.Contains(prompt, strings.Join(c.Exam.Catalog, ", "))
				require.Equal(t, profile == settings.MedEvoEval, listed, "prompt:\n%s", prompt)
				if profile == medinquire.Name {
					require.NotContains(t, prompt, "CALL_MDT")
					require.Contains(t, prompt, "NOT AVAILABLE")
				}
			}
		})
	}
}
