package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/internal/sqliteuri"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/resultstest"
	"github.com/clinevo/clinevo/results/sqlite"
)

func TestConformance(t *testing.T) {
	resultstest.Run(t, resultstest.Backend{
		Fresh: func(t *testing.T) string { return filepath.Join(t.TempDir(), "results.db") },
		Open: func(ctx context.Context, path string) (results.Store, error) {
			return sqlite.Open(ctx, path)
		},
		OpenReader: func(ctx context.Context, path string) (results.Store, error) {
			return sqlite.OpenReader(ctx, path)
		},
		MigrateTo: sqlite.MigrateTo,
		Raw:       fileDB,
	})
}

// fileDB opens a results file without the store, to read or write it as
// another build would.
func fileDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", sqliteuri.File(path, ""))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

// TestMigratesUnversionedFile opens a copy of a results.db written before
// versioned migrations (testdata/README.md says what it holds) and reads every
// value back.
func TestMigratesUnversionedFile(t *testing.T) {
	raw, err := os.ReadFile("testdata/results-unversioned.db")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "results.db")
	require.NoError(t, os.WriteFile(path, raw, 0o644))

	ctx := context.Background()
	const ep = "old/p1/s1/e1-case-a"
	for open := 1; open <= 2; open++ { // the second open finds nothing to do
		s, err := sqlite.Open(ctx, path)
		require.NoError(t, err)
		require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, resultstest.Versions(t, fileDB(t, path)), "open %d", open)

		runs, counts, err := s.Runs(ctx)
		require.NoError(t, err)
		require.Len(t, runs, 1)
		require.Equal(t, results.Run{Run: "old", Kind: "stream", WorkflowID: "stream/old", Spec: []byte(`{"run_id":"old"}`),
			Created: "2026-11-01T10:00:00Z"}, runs[0])
		require.Equal(t, map[string]int{"old": 1}, counts)
		rec, tr, err := s.RecordTrace(ctx, ep)
		require.NoError(t, err)
		require.Equal(t, "case-a", rec.CaseID)
		require.Equal(t, []string{"ASK chest -> answered"}, rec.Actions)
		require.Equal(t, "In my chest.", tr.Events[0].Reply)
		d, err := s.Decision(ctx, ep, 1)
		require.NoError(t, err)
		require.JSONEq(t, `{"action":"FINALIZE"}`, string(d))
		evs, err := s.Events(ctx, ep, 2)
		require.NoError(t, err)
		require.Equal(t, []clinic.Event{{Turn: 0, Action: clinic.Ask, Question: "Where does it hurt?", Status: "answered", Reply: "In my chest.", Cost: 5}}, evs)
		var g map[string][]string
		require.NoError(t, s.Grade(ctx, ep, &g))
		require.Equal(t, map[string][]string{"labels": {"useful"}}, g)
		var p map[string][]string
		require.NoError(t, s.Proposal(ctx, ep, &p))
		require.Equal(t, map[string][]string{"rules": {"ask about radiation"}}, p)
		u, err := s.RunUsage(ctx, "old")
		require.NoError(t, err)
		require.Equal(t, map[string]results.Usage{
			"doctor": {Calls: 2, PromptTokens: 300, CompletionTokens: 40, CostUSD: 0.5, CacheHits: 1},
			"judge":  {Calls: 1, PromptTokens: 100, CompletionTokens: 10, CostUSD: 0.25},
		}, u)
		reply, ok := s.Get(ctx, "judge:abc")
		require.True(t, ok)
		require.Equal(t, `{"score":1}`, reply)
		result, err := s.RunResult(ctx, "old")
		require.NoError(t, err)
		require.Equal(t, `{"episodes":1}`, string(result))
		// The migrated file takes new writes.
		_, err = s.PutDecision(ctx, ep, 2, []byte(`{"action":"ASK"}`))
		require.NoError(t, err)
		require.NoError(t, s.Close())
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = fileDB(t, path).Exec(`INSERT INTO schema_migrations(version, name, applied) VALUES(99, 'from the future', '2030-01-01T00:00:00Z')`)
	require.NoError(t, err)

	_, err = sqlite.Open(context.Background(), path)
	require.ErrorContains(t, err, "schema version 99 is newer than this clinevo knows (9)")
	require.ErrorContains(t, err, path)
}

// TestReadOnlyFile: a results.db the process may not write is read by a
// reader (what `clinevo runs list` opens), and a writer's write to it fails
// with an error naming the file and what to fix, classified as permanent.
func TestReadOnlyFile(t *testing.T) {
	// Root writes a file whatever its mode, so as root only the reader's own
	// read-only mode is checked, not a writer's refusal.
	dir := t.TempDir()
	path := filepath.Join(dir, "results.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	r := resultstest.Record("ro", 1, "c")
	require.NoError(t, s.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 1)))
	require.NoError(t, s.Close())
	require.NoError(t, os.Chmod(path, 0o444))
	for _, f := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Stat(f); err == nil {
			require.NoError(t, os.Chmod(f, 0o444))
		}
	}
	rd, err := sqlite.OpenReader(ctx, path)
	require.NoError(t, err)
	defer rd.Close()
	recs, err := rd.Records(ctx, "ro")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	err = rd.PutRun(ctx, results.Run{Run: "x", Kind: "stream", WorkflowID: "x/stream", Spec: []byte(`{}`)})
	require.ErrorContains(t, err, "results: put run x")
	require.ErrorContains(t, err, "check that "+path+" and its directory exist and can be written by this process")
	require.Equal(t, fault.Invalid, fault.Of(err).Class)
	if os.Geteuid() != 0 {
		// SQLite opens a file it may not write read-only: the writer fails
		// at its first write.
		w, err := sqlite.Open(ctx, path)
		if err == nil {
			defer w.Close()
			err = w.PutRun(ctx, results.Run{Run: "x", Kind: "stream", WorkflowID: "x/stream", Spec: []byte(`{}`)})
		}
		require.ErrorContains(t, err, "check that "+path+" and its directory exist and can be written by this process")
		require.Equal(t, fault.Invalid, fault.Of(err).Class)
	}
}

// TestReaderOfAnOlderFile: a reader does not migrate; a file of an older
// schema is refused saying how to migrate it.
func TestReaderOfAnOlderFile(t *testing.T) {
	raw, err := os.ReadFile("testdata/results-unversioned.db")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "results.db")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	_, err = sqlite.OpenReader(context.Background(), path)
	require.ErrorContains(t, err, "start a worker (clinevo worker or clinevo dev) of this version once to migrate it")
	require.Equal(t, fault.Schema, fault.Of(err).Class)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, raw, after, "the reader wrote nothing")
}

// TestDirectoryNamesAURIWouldCut: results.db files in directories named
// "run#1", "run#2" and "run?x" are three files at those paths (a cut URI
// would open one "run" file beside them for all three), each holding only
// its own records, for the writer and the reader alike.
func TestDirectoryNamesAURIWouldCut(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	names := []string{"run#1", "run#2", "run?x"}
	for i, name := range names {
		require.NoError(t, os.Mkdir(filepath.Join(root, name), 0o755))
		path := filepath.Join(root, name, "results.db")
		s, err := sqlite.Open(ctx, path)
		require.NoError(t, err)
		for n := range i + 1 {
			r := resultstest.Record("r", n+1, "c")
			require.NoError(t, s.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 1)))
		}
		require.NoError(t, s.Close())
		_, err = os.Stat(path)
		require.NoError(t, err, "the file is at %s", path)
	}
	for i, name := range names {
		rd, err := sqlite.OpenReader(ctx, filepath.Join(root, name, "results.db"))
		require.NoError(t, err)
		recs, err := rd.Records(ctx, "r")
		require.NoError(t, err)
		require.Len(t, recs, i+1, "%s holds its own records only", name)
		require.NoError(t, rd.Close())
	}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.ElementsMatch(t, names, got, "no file was opened beside the directories")
}
