package main

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// TestCompareTwoStreams runs two short streams over the same cases, one
// learning and one with a fixed prompt, and compares them: the settings
// diff names the method, the episodes pair by case, S's means are the
// records', both stages are compared; unknown runs and a lone run are bad
// input. `episode list --where` filters the same runs on recorded fields.
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

	for _, args := range [][]string{{"compare", "cmp-a", "nope"}, {"episode", "list", "--run", "cmp-a", "--where", "turns~3"}, {"compare", "cmp-a"}, {"compare", "cmp-a", "cmp-a"}} {
		out, err := run(t, cli, append([]string{"--data-dir", env.DataDir}, args...)...)
		require.Error(t, err, out)
		require.Equal(t, exitBadInput, exitCode(err), "%v: %v", args, err)
	}
}

// TestEpisodeListWhereRecorded: comparisons on recorded fields list the
// episodes whose records meet them, counted here from the records
// themselves.
func TestEpisodeListWhereRecorded(t *testing.T) {
	env := enginetest.Start(t)
	ctx := context.Background()
	cli := map[string]string{"CLINEVO_TEMPORAL_ADDRESS": env.Server.Address()}
	r, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "where-a", Corpus: "builtin:stream", Limit: 8, StageSize: 4})
	require.NoError(t, err)
	require.NoError(t, r.Get(ctx, nil))
	recs, err := env.Engine.Results.Records(ctx, "where-a")
	require.NoError(t, err)
	require.Len(t, recs, 8)
	diag := strings.Fields(recs[0].Final.Diagnosis[0])[0]
	count := func(keep func(results.Record) bool) (ids []string) {
		for _, r := range recs {
			if keep(r) {
				ids = append(ids, r.WorkflowID)
			}
		}
		return ids
	}
	for _, c := range []struct {
		where string
		want  []string
	}{
		{"cards>0", count(func(r results.Record) bool { return len(r.Retrieved) > 0 })},
		{"turns>=" + strconv.Itoa(recs[0].Turns), count(func(r results.Record) bool { return r.Turns >= recs[0].Turns })},
		{"diagnosis~" + diag, count(func(r results.Record) bool {
			return slices.ContainsFunc(r.Final.Diagnosis, func(d string) bool { return strings.Contains(strings.ToLower(d), strings.ToLower(diag)) })
		})},
		{"stage=2 and cost>0", count(func(r results.Record) bool { return r.Stage == 2 && r.Scores.Cost > 0 })},
		{"card=" + firstCard(recs), count(func(r results.Record) bool { return slices.Contains(r.Retrieved, firstCard(recs)) })},
	} {
		t.Run(c.where, func(t *testing.T) {
			out, err := run(t, cli, "--data-dir", env.DataDir, "episode", "list", "--run", "where-a", "--where", c.where, "--json")
			require.NoError(t, err, out)
			var eps []runstatus.Episode
			require.NoError(t, json.Unmarshal([]byte(out), &eps))
			var got []string
			for _, e := range eps {
				got = append(got, e.WorkflowID)
			}
			require.NotEmpty(t, c.want, "the clause matches some episode, so the test can fail")
			require.ElementsMatch(t, c.want, got)
		})
	}
}

// firstCard is the first card any record retrieved ("none" if none did).
func firstCard(recs []results.Record) string {
	for _, r := range recs {
		if len(r.Retrieved) > 0 {
			return r.Retrieved[0]
		}
	}
	return "none"
}
