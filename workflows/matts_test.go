package workflows_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// Under MaTTS (evolver.matts.k 3) each case is played as three child
// episodes, the first under the episode's own ID and the others under
// attempt suffixes, each graded by itself; the stream counts the first
// attempt's score (S 0.2 each, the others 0.9: Pass@1 is 0.2, not the
// best) and learns once per case, from the first with the others named.
// A history without the version marker plays one child per case.
func TestMaTTSPlaysAttemptsAsChildEpisodes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		version  workflow.Version
		episodes []string
		attempts [][]string
		s        float64
	}{
		{"matts", 1, []string{"t/p1/s01/e0001-ca", "t/p1/s01/e0001-ca/a2", "t/p1/s01/e0001-ca/a3",
			"t/p1/s01/e0002-cb", "t/p1/s01/e0002-cb/a2", "t/p1/s01/e0002-cb/a3"},
			[][]string{{"t/p1/s01/e0001-ca/a2", "t/p1/s01/e0001-ca/a3"}, {"t/p1/s01/e0002-cb/a2", "t/p1/s01/e0002-cb/a3"}}, 0.2},
		{"before the marker", workflow.DefaultVersion, []string{"t/p1/s01/e0001-ca", "t/p1/s01/e0002-cb"}, [][]string{nil, nil}, 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := newEnv(&s)
			f := &fakeStream{score: func(id string) float64 {
				if strings.Contains(id, "/a") {
					return 0.9
				}
				return 0.2
			}}
			f.register(env, 2)
			// The change ID is spelled out: renaming it would break running histories.
			env.OnGetVersion("matts-attempts", workflow.DefaultVersion, 1).Return(tc.version)
			sp := spec(0, 2)
			sp.Settings = settings.Default()
			sp.Settings.Evolver.Method, sp.Settings.Evolver.MaTTS.K = settings.MethodReasoningBank, 3
			env.ExecuteWorkflow(workflows.StreamWorkflow, sp)
			require.NoError(t, env.GetWorkflowError())
			var res contract.StreamResult
			require.NoError(t, env.GetWorkflowResult(&res))
			require.Equal(t, 2, res.Episodes)
			require.InDelta(t, tc.s, res.Overall.S, 1e-9, "the stream counts the first attempt")
			var played, graded []string
			for _, c := range f.calls {
				if id, ok := strings.CutPrefix(c, "episode:"); ok {
					played = append(played, id)
				}
				if id, ok := strings.CutPrefix(c, "grade:"); ok {
					graded = append(graded, id)
				}
			}
			require.ElementsMatch(t, tc.episodes, played)
			require.Len(t, graded, len(tc.episodes), "every attempt grades itself")
			require.Equal(t, []string{"t/p1/s01/e0001-ca", "t/p1/s01/e0002-cb"}, f.records, "one record per case")
			require.Len(t, f.learnt, 2)
			for i, in := range f.learnt {
				require.Len(t, in.Episodes, 1)
				require.Equal(t, tc.attempts[i], in.Episodes[0].Attempts)
			}
		})
	}
}
