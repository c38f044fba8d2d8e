package ddxplus_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// evolverInputs records what the learning methods are given.
type evolverInputs struct {
	mu     sync.Mutex
	inputs []string // each input as JSON
	truths int      // calls that got the answer key
}

type recordingEvolver struct {
	rec   *evolverInputs
	inner evolver.Evolver
}

func (e recordingEvolver) Evolve(ctx context.Context, cfg settings.Evolver, in evolver.Input, truth *grader.Key, rules []clinic.Rule) (evolver.Output, error) {
	b, _ := json.Marshal(in) // plain data
	e.rec.mu.Lock()
	e.rec.inputs = append(e.rec.inputs, string(b))
	if truth != nil {
		e.rec.truths++
	}
	e.rec.mu.Unlock()
	return e.inner.Evolve(ctx, cfg, in, truth, rules)
}

// TestTwoHundredPatientsInEachMode streams the first 200 shipped patients
// through Temporal on the embedded server with the built-in roles, under
// StreamBench's protocol (MemPrompt) and interactively (MemPrompt), and
// checks that every episode finished and that no learning step was given
// the answer key: under score-only feedback the evolver gets no key, and no
// input it gets holds a patient's differential.
func TestTwoHundredPatientsInEachMode(t *testing.T) {
	if testing.Short() {
		t.Skip("400 episodes on the embedded server")
	}
	rec := &evolverInputs{}
	env := enginetest.StartWith(t, enginetest.Quiet{}, func(e *engine.Engine) {
		roles := e.Activities.Roles
		e.Activities.Roles = func(s settings.Settings) (runner.Roles, error) {
			r, err := roles(s)
			if err != nil {
				return r, err
			}
			inner, err := evolver.New(s.Evolver, evolver.Env{})
			if err != nil {
				return r, err
			}
			r.Evolver = recordingEvolver{rec, inner}
			return r, nil
		}
	})
	ctx := context.Background()
	spec, err := experiments.Parse("streambench.yaml", ddxplus.Protocol, settings.Default())
	require.NoError(t, err)
	var conds []contract.ConditionSpec
	for _, c := range spec.Conditions {
		if c.Name == "memprompt" || c.Name == "interactive-memprompt" {
			c.PairedWith = ""
			conds = append(conds, c)
		}
	}
	spec.Name, spec.Conditions, spec.Limit = "ddx200", conds, 200
	require.NoError(t, spec.Validate())
	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	runCtx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	require.NoError(t, run.Get(runCtx, nil))

	in, err := analysis.Load(ctx, env.Engine.Results, "ddx200")
	require.NoError(t, err)
	rep := analysis.Build(in)
	require.Len(t, rep.Conditions, 2)
	for _, c := range rep.Conditions {
		require.Equal(t, 200, c.Overall.N, c.Name)
		t.Logf("%s: mean S (accuracy) over 200 patients %.3f", c.Name, c.Overall.S)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.inputs, 400, "one learning step per episode")
	require.Zero(t, rec.truths, "no evolver call got the answer key")
	for _, input := range rec.inputs {
		require.False(t, strings.Contains(input, `"differential"`) || strings.Contains(input, "probability"), "a learner's input holds a differential")
	}
}
