package medinquire_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// TestDiagnosisArenaStream plays the shipped diagnosisarena.yaml's
// EvoClinician condition on the first 100 DiagnosisArena cases, in two
// stages of 50, on the embedded Temporal server with the built-in roles:
// the stream finishes, plays the imported cases in published order, and
// every episode is graded 0–100 and costs at least the base cost of its
// turns, and the doctor orders tests.
func TestDiagnosisArenaStream(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 100 episodes on the embedded server")
	}
	env := enginetest.Start(t) // opens the engine, which registers the benchmarks the spec's corpus needs
	ctx := context.Background()
	spec, err := experiments.Parse("diagnosisarena.yaml", medinquire.ArenaProtocol, settings.Default())
	require.NoError(t, err)
	require.Equal(t, "builtin:diagnosisarena", spec.Corpus)
	spec.Name, spec.Limit, spec.StageSize = "arena", 100, 50
	var keep []contract.ConditionSpec
	for _, c := range spec.Conditions {
		if c.Name == "evoclinician" {
			c.PairedWith = ""
			keep = append(keep, c)
		}
	}
	spec.Conditions = keep
	require.NoError(t, spec.Validate())
	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))

	in, err := analysis.Load(ctx, env.Engine.Results, spec.Name)
	require.NoError(t, err)
	rep := analysis.Build(in)
	require.Len(t, rep.Conditions, 1)
	c := rep.Conditions[0]
	require.Equal(t, medinquire.Name, c.Profile)
	require.Equal(t, 100, c.Overall.N)
	require.Len(t, c.Episodes, 100)
	tested := 0
	for i, r := range c.Episodes {
		if r.Scores.E > 0 {
			tested++
		}
		require.Equal(t, fmt.Sprintf("diagnosisarena-%04d", i+1), r.CaseID, "published order")
		require.GreaterOrEqual(t, r.Scores.Grade, 0)
		require.LessOrEqual(t, r.Scores.Grade, 100)
		require.GreaterOrEqual(t, r.Scores.Cost, 5*float64(r.Scores.T), "C is at least the base cost of 5 a turn")
	}
	t.Logf("episodes with a billable test ordered: %d of 100", tested)
	require.Positive(t, tested, "the built-in doctor orders tests where the view shows no list")
}
