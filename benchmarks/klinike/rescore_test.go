package klinike_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/rescore"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// deafJudge hears no must-ask topic: every verdict is false.
type deafJudge struct{ grader.RubricJudge }

func (deafJudge) JudgeMustAsk(_ context.Context, _ *clinic.Case, topics, _ []string) ([]bool, error) {
	return make([]bool, len(topics)), nil
}

// TestExperimentRescore plays a KlinikeBench condition, re-scores it under a
// judge that hears no topic, and checks the new run: the same episodes and
// events, H of 0 everywhere (no topic raised) and D, W, A as recorded.
func TestExperimentRescore(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })

	spec := contract.ExperimentSpec{Name: "kb", HeldOut: "builtin:klinike-test@7", Settings: settings.Overrides{"profile": "klinike"},
		Conditions: []contract.ConditionSpec{{Name: "A", Kind: contract.KindHeldOut}, {Name: "A@cap45", Kind: contract.KindHeldOut, PairedWith: "A"}}}
	require.NoError(t, spec.Validate())
	s, err := spec.SettingsOf(0)
	require.NoError(t, err)
	cp, err := benchtest.Library(klinike.Benchmark{}).Load(spec.HeldOut)
	require.NoError(t, err)
	d := runner.Deps{Bench: klinike.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: s}
	run := spec.RunID("A")
	for i, c := range cp.Cases[:5] {
		id := fmt.Sprintf("%s/p1/s00/e%04d-%s", run, i+1, c.ID)
		tr, err := runner.Play(ctx, c, d, runner.Meta{RunID: run, EpisodeID: id, Number: 1, Frozen: true})
		require.NoError(t, err)
		require.NoError(t, store.PutRecord(ctx, results.Record{EpisodeID: id, WorkflowID: id, Run: run, Kind: "heldout", Index: i + 1,
			CaseID: c.ID, Scores: *tr.Scores, Final: tr.Final, Termination: tr.Termination}, tr))
	}
	roles := func(s settings.Settings) (runner.Roles, error) {
		require.Equal(t, "builtin", s.Roles["judge"].Backend)
		r := runner.BuiltinRoles()
		r.Judge = deafJudge{}
		return r, nil
	}
	_, err = rescore.Experiment(ctx, store, benchtest.SetOf(t, klinike.Benchmark{}), spec, settings.Role{Backend: "builtin"}, "judge@b", roles)
	require.ErrorContains(t, err, `variant "judge@b"`)
	sums, err := rescore.Experiment(ctx, store, benchtest.SetOf(t, klinike.Benchmark{}), spec, settings.Role{Backend: "builtin"}, "deaf", roles)
	require.NoError(t, err)
	require.Len(t, sums, 1, "only the baseline A is re-scored, not its variant A@cap45")
	require.Equal(t, "kb-A@deaf", sums[0].Run)
	require.Equal(t, 5, sums[0].Episodes)
	require.Zero(t, sums[0].After, "no topic raised, no strict pass")

	before, err := store.Records(ctx, run)
	require.NoError(t, err)
	after, err := store.Records(ctx, spec.VariantRunID("A", "deaf"))
	require.NoError(t, err)
	require.Len(t, after, len(before))
	for i := range before {
		b, a := before[i].Scores.Metrics, after[i].Scores.Metrics
		require.Equal(t, "kb-A@deaf"+before[i].EpisodeID[len(run):], after[i].EpisodeID)
		require.Equal(t, before[i].CaseID, after[i].CaseID)
		for _, k := range []string{"d", "w", "a"} {
			require.Equal(t, b[k], a[k], k)
		}
		require.Zero(t, a["h"])
		_, tb, err := store.RecordTrace(ctx, before[i].EpisodeID)
		require.NoError(t, err)
		_, ta, err := store.RecordTrace(ctx, after[i].EpisodeID)
		require.NoError(t, err)
		require.Equal(t, tb.Events, ta.Events, "nothing is replayed")
		require.Equal(t, after[i].Scores, *ta.Scores)
	}
	runs, _, err := store.Runs(ctx)
	require.NoError(t, err)
	var got results.Run
	for _, r := range runs {
		if r.Run == "kb-A@deaf" {
			got = r
		}
	}
	require.Equal(t, rescore.Kind, got.Kind)
	var sp map[string]any
	require.NoError(t, json.Unmarshal(got.Spec, &sp))
	require.Equal(t, "kb-A", sp["source"])
	raw, err := store.RunResult(ctx, "kb-A@deaf")
	require.NoError(t, err)
	require.Contains(t, string(raw), `"episodes":5`)
}
