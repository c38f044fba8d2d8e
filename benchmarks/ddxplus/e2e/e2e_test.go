package e2e_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/runner"
)

// keys counts the learning steps and those given the answer key.
type keys struct {
	mu           sync.Mutex
	calls, given int
}

// recordingGrader counts the process grader's calls and keys: the grader and
// every learning method get the same write-back (runner.WriteBack, nil under
// score-only feedback) from the same settings, so a grader that never got a
// key means no method did either.
type recordingGrader struct {
	k     *keys
	inner grader.ProcessGrader
}

func (g recordingGrader) GradeProcess(ctx context.Context, in grader.ProcessInput, key *grader.Key) (grader.ProcessGrade, error) {
	g.k.mu.Lock()
	g.k.calls++
	if key != nil {
		g.k.given++
	}
	g.k.mu.Unlock()
	return g.inner.GradeProcess(ctx, in, key)
}

// TestTwoHundredPatientsInEachMode streams the first 200 shipped patients
// through Temporal on the embedded server with the built-in roles, under
// StreamBench's protocol (MemPrompt) and interactively (MemPrompt), and
// checks that every episode finished and that no learning step was given
// the answer key (the evolver's input type has no field for one).
func TestTwoHundredPatientsInEachMode(t *testing.T) {
	if testing.Short() {
		t.Skip("400 episodes on the embedded server")
	}
	k := &keys{}
	env := enginetest.StartWith(t, enginetest.Quiet{}, enginetest.WrapRoles(func(r *runner.Roles) {
		r.Grader = recordingGrader{k, r.Grader}
	}))
	ctx := context.Background()
	spec := enginetest.Keep(t, enginetest.Spec(t, "streambench.yaml", ddxplus.Protocol), "memprompt", "interactive-memprompt")
	spec.Name, spec.Limit = "ddx200", 200
	require.NoError(t, spec.Validate())
	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	runCtx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	require.NoError(t, run.Get(runCtx, nil))

	in, err := analysis.Load(ctx, env.Engine.Results, env.Engine.Benchmarks, "ddx200")
	require.NoError(t, err)
	rep := analysis.Build(in)
	require.Len(t, rep.Conditions, 2)
	for _, c := range rep.Conditions {
		require.Equal(t, 200, c.Overall.N, c.Name)
		t.Logf("%s: mean S (accuracy) over 200 patients %.3f", c.Name, c.Overall.S)
	}

	k.mu.Lock()
	defer k.mu.Unlock()
	require.Equal(t, 400, k.calls, "one learning step per episode")
	require.Zero(t, k.given, "no learning step got the answer key")
}
