package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/workflows"
)

// TestEvaluationEpochs: a held-out evaluation of 2 cases over 3 epochs
// plays 6 episodes, epoch by epoch, each with its own stable ID and its
// epoch in its record; the first epoch keeps the IDs of one play, and the
// means are over every play. One epoch plays as before: no epoch anywhere.
func TestEvaluationEpochs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		epochs int
		want   map[string]int // episode ID -> epoch in its record
	}{
		{"three epochs", 3, map[string]int{
			"h/p1/s01/e0001-ca": 1, "h/p1/s01/e0002-cb": 1,
			"h/p1/s01/e0001.k002-ca": 2, "h/p1/s01/e0002.k002-cb": 2,
			"h/p1/s01/e0001.k003-ca": 3, "h/p1/s01/e0002.k003-cb": 3}},
		{"one epoch", 0, map[string]int{"h/p1/s01/e0001-ca": 0, "h/p1/s01/e0002-cb": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := newEnv(&s)
			f := &fakeStream{}
			f.register(env, 2)
			env.RegisterWorkflow(workflows.EvaluationWorkflow)
			env.ExecuteWorkflow(workflows.EvaluationWorkflow, contract.EvalSpec{RunID: "h", Kind: contract.KindHeldOut, Corpus: "builtin:heldout",
				CaseIDs: []string{"ca", "cb"}, Stage: 1, Pass: 1, Concurrency: 2, Epochs: tc.epochs})
			require.NoError(t, env.GetWorkflowError())
			var res contract.EvalResult
			require.NoError(t, env.GetWorkflowResult(&res))
			require.Equal(t, tc.want, f.epochs)
			require.Equal(t, len(tc.want), res.Means.N, "the means are over every play")
			require.InDelta(t, 0.5, res.Means.S, 1e-12)
		})
	}
}
