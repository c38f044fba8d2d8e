package enginetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/workflows"
)

// The harness a benchmark's folder calls for its end-to-end runs: parse its
// shipped spec against the build's benchmarks, play it on the embedded
// server, and read its report back.

// Set is the build's benchmarks (engine.Benchmarks).
func Set(t testing.TB) bench.Set {
	t.Helper()
	set, err := engine.Benchmarks()
	require.NoError(t, err)
	return set
}

// Library reads cases as the engine's worker does (corpus.NewLibrary of Set).
func Library(t testing.TB) corpus.Library { return corpus.NewLibrary(Set(t)) }

// Spec parses a shipped experiment spec (name, its bytes) with the build's
// default settings, as `clinevo experiment run` reads it.
func Spec(t testing.TB, name string, b []byte) contract.ExperimentSpec {
	t.Helper()
	set := Set(t)
	spec, err := experiments.Parse(name, b, set.DefaultSettings(), set)
	require.NoError(t, err)
	return spec
}

// Keep trims spec to the named conditions, in their order in spec, each
// without its pairing (a pair partner may be left out), and checks it.
func Keep(t testing.TB, spec contract.ExperimentSpec, names ...string) contract.ExperimentSpec {
	t.Helper()
	var keep []contract.ConditionSpec
	for _, c := range spec.Conditions {
		for _, n := range names {
			if c.Name == n {
				c.PairedWith = ""
				keep = append(keep, c)
			}
		}
	}
	require.Len(t, keep, len(names), "every condition named is in the spec")
	spec.Conditions = keep
	require.NoError(t, spec.Validate())
	return spec
}

// RunExperiment plays spec to its end on env's server and returns its
// result and its report, as `clinevo report` builds it.
func RunExperiment(t testing.TB, env *Env, spec contract.ExperimentSpec) (contract.ExperimentResult, analysis.Report) {
	t.Helper()
	ctx := context.Background()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.ExperimentWorkflowID(spec.Name), TaskQueue: contract.TaskQueue},
		workflows.ExperimentWorkflow, spec)
	require.NoError(t, err)
	var out contract.ExperimentResult
	require.NoError(t, run.Get(ctx, &out))
	in, err := analysis.Load(ctx, env.Engine.Results, env.Engine.Benchmarks, spec.Name)
	require.NoError(t, err)
	return out, analysis.Build(in)
}
