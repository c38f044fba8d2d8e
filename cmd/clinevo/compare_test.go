package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/settings"
)

// TestCompareTwoStreams runs two short streams over the same cases, one
// learning and one with a fixed prompt, and compares them: the settings
// diff names the method, the episodes pair by case, S's means are the
// records', both stages are compared; unknown runs and a lone run are bad
// input.
func TestCompareTwoStreams(t *testing.T) {
	env := enginetest.Start(t)
	ctx := context.Background()
	cli := map[string]string{"CLINEVO_TEMPORAL_ADDRESS": env.Server.Address()}
	static := settings.Default()
	static.Evolver.Method = settings.MethodStatic
	for _, s := range []contract.StreamSpec{
		{RunID: "cmp-a", Corpus: "builtin:stream", Limit: 6, StageSize: 3},
		{RunID: "cmp-b", Corpus: "builtin:stream", Limit: 6, StageSize: 3, Settings: static},
	} {
		r, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", s)
		require.NoError(t, err)
		require.NoError(t, r.Get(ctx, nil))
	}

	out, err := run(t, cli, "--data-dir", env.DataDir, "compare", "cmp-a", "cmp-b")
	require.NoError(t, err, out)
	require.Regexp(t, `cmp-a \(stream, medevoeval, 6 episodes\)  vs  cmp-b \(stream, medevoeval, 6 episodes\)\n`+
		`settings that differ:\n.*\n  evolver.method\s+clinevo\s+static\n`, out)
	require.Contains(t, out, "paired by case: 6 cases in both (0 only in cmp-a, 0 only in cmp-b)")
	require.Contains(t, out, "stage 1:")
	require.Contains(t, out, "stage 2:")

	out, err = run(t, cli, "--data-dir", env.DataDir, "compare", "cmp-a", "cmp-b", "--json")
	require.NoError(t, err, out)
	var c analysis.RunComparison
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	require.Len(t, c.Pairs, 1)
	p := c.Pairs[0]
	require.True(t, p.Paired)
	require.Len(t, p.Stages, 2)
	mean := func(run string) float64 {
		recs, err := env.Engine.Results.Records(ctx, run)
		require.NoError(t, err)
		require.Len(t, recs, 6)
		sum := 0.0
		for _, r := range recs {
			sum += r.Scores.S
		}
		return sum / 6
	}
	s := p.Metric[0]
	require.Equal(t, "s", s.Metric, "MedEvoEval declares S first")
	require.Equal(t, 6, s.NA)
	require.InDelta(t, mean("cmp-a"), s.MeanA, 1e-9)
	require.InDelta(t, mean("cmp-b"), s.MeanB, 1e-9)
	require.InDelta(t, s.MeanB-s.MeanA, s.MeanDiff, 1e-9, "every case paired: the mean difference is the difference of means")

	for _, args := range [][]string{{"compare", "cmp-a", "nope"}, {"compare", "cmp-a"}, {"compare", "cmp-a", "cmp-a"}} {
		out, err := run(t, cli, append([]string{"--data-dir", env.DataDir}, args...)...)
		require.Error(t, err, out)
		require.Equal(t, exitBadInput, exitCode(err), "%v: %v", args, err)
	}
}
