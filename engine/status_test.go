package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// brokenStore is a data directory whose results.db is not a database: a
// store the status commands cannot read.
func brokenStore(t *testing.T) engine.Options {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.db"), []byte("not a database"), 0o644))
	return engine.Options{DataDir: dir}
}

// TestStreamStatus: a stream's status is Temporal's, with the figures of
// its model endpoints from the results store; a store that cannot be read
// costs only those figures, and the status says why.
func TestStreamStatus(t *testing.T) {
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "m1", Corpus: "builtin:stream", Limit: 1, StageSize: 1, Settings: enginetest.ModelSettings(srv, "", "doctor")}
	run, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))

	st, err := engine.StreamStatus(ctx, env.Client, engine.Options{DataDir: env.DataDir}, "m1")
	require.NoError(t, err)
	require.Equal(t, runstatus.StatusCompleted, st.Status)
	require.Empty(t, st.StoreError)
	require.Len(t, st.Endpoints, 1, "the doctor's endpoint has a limiter (concurrency 4)")
	require.Equal(t, []string{"doctor"}, st.Endpoints[0].Roles)
	require.Positive(t, st.Endpoints[0].Calls)

	st, err = engine.StreamStatus(ctx, env.Client, brokenStore(t), "m1")
	require.NoError(t, err)
	require.Equal(t, runstatus.StatusCompleted, st.Status, "the status is Temporal's")
	require.NotEmpty(t, st.StoreError)
	require.Empty(t, st.Endpoints)

	_, err = engine.StreamStatus(ctx, env.Client, engine.Options{DataDir: env.DataDir}, "nope")
	require.Error(t, err, "a stream Temporal does not know")
}

// TestExperimentStatusPlanAndRescore plays a small experiment (a stream of
// two cases, a held-out run of two) and reads it back: its status with its
// plan beside its use (none readable from a broken store, which the status
// says), its plan before and after it ran, and its held-out baseline
// re-scored under another judge.
func TestExperimentStatusPlanAndRescore(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	set := enginetest.Set(t)
	spec := enginetest.Keep(t, enginetest.Spec(t, "quick.yaml", experiments.Quick), "E0", "H0")
	spec.Name, spec.Limit, spec.StageSize, spec.HeldOutLimit = "tiny", 2, 2, 2
	require.NoError(t, spec.Validate())

	before, err := engine.Plan(ctx, engine.Options{DataDir: env.DataDir}, set, spec)
	require.NoError(t, err)
	require.Nil(t, before.Used, "no record of the experiment yet")
	enginetest.RunExperiment(t, env, spec)

	ex, err := engine.ExperimentStatus(ctx, env.Client, engine.Options{DataDir: env.DataDir}, set, "tiny")
	require.NoError(t, err)
	require.Equal(t, runstatus.StatusCompleted, ex.Status)
	require.Len(t, ex.Conditions, 2)
	require.Empty(t, ex.PlanError)
	require.NotNil(t, ex.Plan)
	require.NotNil(t, ex.Used)
	ex, err = engine.ExperimentStatus(ctx, env.Client, brokenStore(t), set, "tiny")
	require.NoError(t, err)
	require.Len(t, ex.Conditions, 2, "the status is Temporal's")
	require.NotEmpty(t, ex.PlanError)
	require.Nil(t, ex.Plan)

	after, err := engine.Plan(ctx, engine.Options{DataDir: env.DataDir}, set, spec)
	require.NoError(t, err)
	require.NotNil(t, after.Used, "the experiment's use, from its records")
	_, err = engine.Plan(ctx, brokenStore(t), set, spec)
	require.Error(t, err)

	// The built-in judge scores as the recorded run's did: the mean S stays.
	var out strings.Builder
	require.NoError(t, env.Engine.Rescore(ctx, "tiny", settings.Role{Backend: settings.Builtin}, "judge-b", &out))
	line := out.String()
	require.Regexp(t, `^tiny-H0 -> tiny-H0@judge-b: 2 episodes, mean S (\d\.\d{3}) -> (\d\.\d{3})\n$`, line)
	scores := strings.Fields(strings.TrimSuffix(line, "\n"))
	require.Equal(t, scores[len(scores)-3], scores[len(scores)-1])
	err = env.Engine.Rescore(ctx, "nope", settings.Role{Backend: settings.Builtin}, "judge-b", &out)
	require.ErrorContains(t, err, `experiment "nope" is not in`)
}
