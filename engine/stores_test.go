package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// TestConfigured: the stores follow the configuration: the data directory's
// files, or PostgreSQL and Qdrant with the secrets their variables hold; and
// a process announces its results where they go, never with the password.
func TestConfigured(t *testing.T) {
	t.Setenv("CLINEVO_TEST_PG_PASSWORD", "pw-7")
	t.Setenv("CLINEVO_TEST_QDRANT_KEY", "qk-9")
	cfg := config.Config{DataDir: "/data", Settings: settings.Default(), Memory: config.MemoryStore{Dim: 64}}
	cfg.Settings.Roles["embeddings"] = settings.Role{Backend: settings.OpenAI, Model: "emb-1"}
	cfg.Telemetry.PromptText = true

	o := engine.Configured(cfg, true)
	require.Equal(t, "/data", o.DataDir)
	require.True(t, o.ReadOnly)
	require.Equal(t, 64, o.MemoryDim)
	require.Equal(t, "emb-1", o.Embeddings.Model)
	require.True(t, o.PromptText)
	require.Nil(t, o.Postgres)
	require.Nil(t, o.Qdrant)
	require.Equal(t, filepath.Join("/data", "results.db"), o.ResultsAt())
	require.False(t, engine.Configured(cfg, false).ReadOnly)

	cfg.Results = config.ResultsConfig{Backend: "postgres", Postgres: config.PostgresConfig{DSN: "postgres://clinevo@db/clinevo", PasswordEnv: "CLINEVO_TEST_PG_PASSWORD"}}
	cfg.Settings.Memory.Backend = "qdrant"
	cfg.Memory.Qdrant = config.QdrantConfig{Host: "qd", Port: 6334, Collection: "cards", APIKeyEnv: "CLINEVO_TEST_QDRANT_KEY"}
	o = engine.Configured(cfg, false)
	require.Equal(t, "pw-7", o.Postgres.Password)
	require.Equal(t, "qk-9", o.Qdrant.APIKey)
	require.Equal(t, "cards", o.Qdrant.Collection)
	require.Equal(t, "postgres postgres://clinevo@db/clinevo", o.ResultsAt(), "the DSN, not the password")
}

// TestWithResults: where nothing has run, fn gets no store (and its error is
// the call's); where a store is, fn reads it, or writes it without ReadOnly;
// a store that cannot be opened is the error, and fn is not called.
func TestWithResults(t *testing.T) {
	ctx := context.Background()
	empty := engine.Options{DataDir: t.TempDir(), ReadOnly: true}
	stop := errors.New("stop")
	var got results.Store
	called := false
	err := engine.WithResults(ctx, empty, func(s results.Store) error { called, got = true, s; return stop })
	require.ErrorIs(t, err, stop)
	require.True(t, called)
	require.Nil(t, got, "nothing has run: no store")
	entries, err := os.ReadDir(empty.DataDir)
	require.NoError(t, err)
	require.Empty(t, entries, "no store is created")

	dir := t.TempDir()
	eng, err := engine.Open(ctx, engine.Options{DataDir: dir})
	require.NoError(t, err)
	require.NoError(t, eng.Close())
	run := results.Run{Run: "r1", Kind: string(contract.KindStream), WorkflowID: "r1/stream", Spec: json.RawMessage(`{}`)}
	require.NoError(t, engine.WithResults(ctx, engine.Options{DataDir: dir}, func(s results.Store) error { return s.PutRun(ctx, run) }))
	require.NoError(t, engine.WithResults(ctx, engine.Options{DataDir: dir, ReadOnly: true}, func(s results.Store) error {
		runs, _, err := s.Runs(ctx)
		require.Len(t, runs, 1)
		require.Equal(t, "r1", runs[0].Run)
		return err
	}))

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "results.db"), []byte("not a database"), 0o644))
	err = engine.WithResults(ctx, engine.Options{DataDir: bad, ReadOnly: true}, func(results.Store) error {
		t.Fatal("fn is called only with a store that opened")
		return nil
	})
	require.Error(t, err)
}

// TestPlayCase plays one case in process with the built-in roles, as
// `episode run` does: the episode is adhoc/<case> of run adhoc, and it ends.
func TestPlayCase(t *testing.T) {
	cs := synth.Generate(7)["stream"][0]
	set := enginetest.Set(t)
	s := set.DefaultSettings()
	b, err := set.Of(s)
	require.NoError(t, err)
	tr, err := engine.PlayCase(context.Background(), s, b, cs, llm.Options{})
	require.NoError(t, err)
	require.Equal(t, "adhoc/"+cs.ID, tr.EpisodeID)
	require.Equal(t, cs.ID, tr.CaseID)
	require.NotEmpty(t, tr.Events)
	require.NotEqual(t, clinic.Termination(""), tr.Termination, "the episode ended")
}

// TestRunBenchmark: a recorded run's benchmark is the one its spec's
// settings name; a run no spec names, or one whose benchmark this build
// lacks, has none (its traces are read the shared way).
func TestRunBenchmark(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{DataDir: t.TempDir()})
	require.NoError(t, err)
	defer eng.Close()
	put := func(run, benchmark string) {
		s := settings.Default()
		s.Benchmark = benchmark
		spec, err := json.Marshal(contract.StreamSpec{RunID: run, Corpus: "builtin:stream", Settings: s})
		require.NoError(t, err)
		require.NoError(t, eng.Results.PutRun(ctx, results.Run{Run: run, Kind: string(contract.KindStream), WorkflowID: run + "/stream", Spec: spec}))
	}
	put("g1", "gpagent")
	put("x1", "no-such-benchmark")
	b, err := eng.RunBenchmark(ctx, "g1")
	require.NoError(t, err)
	require.Equal(t, "gpagent", b.Name())
	b, err = eng.RunBenchmark(ctx, contract.StageEvalRunID("g1", 1))
	require.NoError(t, err)
	require.Equal(t, "gpagent", b.Name(), "a stage evaluation plays its stream's benchmark")
	for _, run := range []string{"x1", "unknown"} {
		b, err = eng.RunBenchmark(ctx, run)
		require.NoError(t, err)
		require.Nil(t, b, run)
	}
}
