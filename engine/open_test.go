package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/memory"
)

// A reader (the viewer, report, inspect and memory commands) creates no file:
// a data dir with neither store is an error naming it, and a store file that
// is missing beside the other is read as empty, in memory.
func TestReaderCreatesNoFiles(t *testing.T) {
	t.Parallel() // see TestMain
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	_, err := engine.Open(ctx, engine.Options{DataDir: missing, ReadOnly: true})
	require.ErrorContains(t, err, "nothing has run with this data_dir")
	require.ErrorContains(t, err, missing)
	_, err = os.Stat(missing)
	require.ErrorIs(t, err, os.ErrNotExist, "the reader made the directory")

	empty := t.TempDir()
	_, err = engine.Open(ctx, engine.Options{DataDir: empty, ReadOnly: true})
	require.ErrorContains(t, err, "neither results.db nor memory.db")
	files, err := os.ReadDir(empty)
	require.NoError(t, err)
	require.Empty(t, files)

	// A worker's engine creates both stores; with results.db gone, a reader
	// of the dir reads an empty results store and leaves no results.db behind.
	dir := t.TempDir()
	w, err := engine.Open(ctx, engine.Options{DataDir: dir})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, os.Remove(filepath.Join(dir, "results.db")))
	for _, f := range []string{"results.db-wal", "results.db-shm"} {
		os.Remove(filepath.Join(dir, f))
	}
	r, err := engine.Open(ctx, engine.Options{DataDir: dir, ReadOnly: true})
	require.NoError(t, err)
	runs, _, err := r.Results.Runs(ctx)
	require.NoError(t, err)
	require.Empty(t, runs)
	st, err := r.Memory.Stats(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Zero(t, st.Total)
	require.NoError(t, r.Close())
	_, err = os.Stat(filepath.Join(dir, "results.db"))
	require.ErrorIs(t, err, os.ErrNotExist, "the reader created results.db")
}
