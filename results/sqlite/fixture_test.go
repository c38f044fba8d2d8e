package sqlite_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/resultstest"
	"github.com/clinevo/clinevo/results/sqlite"
)

// TestReadsVersion7File opens a copy of a results.db written by the store as
// it was before its queries moved to results/internal/sqlstore (schema
// version 7; testdata/README.md says what it holds), as a writer and as a
// reader, and reads every value back; the writer migrates nothing.
func TestReadsVersion7File(t *testing.T) {
	ctx := context.Background()
	path := copyFixture(t, "testdata/results-v7.db")
	before := schema(t, path)
	w, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	readsV7(t, w)
	require.NoError(t, w.Close())
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, resultstest.Versions(t, fileDB(t, path)))
	require.Equal(t, withLaterColumns(t, before), schema(t, path), "the writer added the columns of versions 8 and 9 and changed nothing else")
	r, err := sqlite.OpenReader(ctx, path)
	require.NoError(t, err)
	readsV7(t, r)
	require.NoError(t, r.Close())
}

// TestNewFileHasTheSchemaOfVersion7: a file this build creates holds the
// tables, columns and indexes of the file the version-7 build wrote, to the
// letter of their SQL, with version 8's one column (runs.terminated) and
// version 9's two (usage.served_models, usage.fingerprints).
func TestNewFileHasTheSchemaOfVersion7(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.Equal(t, withLaterColumns(t, schema(t, copyFixture(t, "testdata/results-v7.db"))), schema(t, path))
}

// withLaterColumns is a version-7 schema as the migrations of versions 8
// and 9 leave it: SQLite adds a column to the table's CREATE statement
// after its last column.
func withLaterColumns(t *testing.T, v7 []string) []string {
	t.Helper()
	out := slices.Clone(v7)
	added := map[string]string{"runs": ", terminated TEXT NOT NULL DEFAULT ''",
		"usage": ", served_models TEXT NOT NULL DEFAULT '', fingerprints TEXT NOT NULL DEFAULT ''"}
	for i, entry := range out {
		for table, cols := range added {
			if strings.HasPrefix(entry, "table "+table+": ") {
				require.True(t, strings.HasSuffix(entry, ")"), entry)
				// After the last column: before a table constraint, if any.
				at := strings.LastIndex(entry, ", PRIMARY KEY")
				if at < 0 {
					at = len(entry) - 1
				}
				out[i] = entry[:at] + cols + entry[at:]
				delete(added, table)
			}
		}
	}
	require.Empty(t, added, "tables missing from %q", v7)
	return out
}

func readsV7(t *testing.T, s results.Store) {
	ctx := context.Background()
	const ep = "v7/p1/s1/e1-case-a"
	runs, counts, err := s.Runs(ctx)
	require.NoError(t, err)
	require.Equal(t, []results.Run{{Run: "v7", Kind: "stream", WorkflowID: "stream/v7", Spec: json.RawMessage(`{"run_id":"v7"}`),
		Created: "2026-12-01T10:00:00Z", Claim: "claim-v7", Completed: "2026-12-05T11:39:24Z"}}, runs)
	require.Equal(t, map[string]int{"v7": 1}, counts)
	d, err := s.Decision(ctx, ep, 0)
	require.NoError(t, err)
	require.JSONEq(t, `{"action":"ASK","question":"Where does it hurt?"}`, string(d))
	ev := clinic.Event{Turn: 0, Action: clinic.Ask, Question: "Where does it hurt?", Status: "answered", Reply: "In my chest.", Cost: 5}
	evs, err := s.Events(ctx, ep, 2)
	require.NoError(t, err)
	require.Equal(t, []clinic.Event{ev}, evs)
	rec, tr, err := s.RecordTrace(ctx, ep)
	require.NoError(t, err)
	require.Equal(t, []string{"ASK chest -> answered", "FINALIZE -> final"}, rec.Actions)
	require.Equal(t, []clinic.Event{ev}, tr.Events)
	var g, p map[string][]string
	require.NoError(t, s.Grade(ctx, ep, &g))
	require.Equal(t, map[string][]string{"labels": {"useful"}}, g)
	require.NoError(t, s.Proposal(ctx, ep, &p))
	require.Equal(t, map[string][]string{"add": {"ask about radiation"}}, p)
	u, err := s.RunUsage(ctx, "v7")
	require.NoError(t, err)
	require.Equal(t, map[string]results.Usage{
		"doctor": {Model: "m-doc", Calls: 2, PromptTokens: 300, CompletionTokens: 40, CostUSD: 0.5, CacheHits: 1, ExtraFields: 1,
			CachedTokens: 64, Endpoint: "http://m/v1 m-doc", RateLimited: 1, WaitedMS: 250, Limit: 3, LimitAt: 1000},
		"judge": {Model: "m-judge", Calls: 1, PromptTokens: 100, CompletionTokens: 10, CostUSD: 0.25},
	}, u)
	ms, err := s.TimeOf(ctx, ep)
	require.NoError(t, err)
	require.Equal(t, map[string]float64{results.PhaseDiagnose: 120.5, results.PhaseUpdate: 30}, ms)
	reply, ok := s.Get(ctx, "judge:abc")
	require.True(t, ok)
	require.Equal(t, `{"score":1}`, reply)
	body := json.RawMessage(`{"benchmark":"medevoeval"}`)
	got, err := s.Settings(ctx, results.SettingsRef(body))
	require.NoError(t, err)
	require.Equal(t, string(body), string(got))
	result, err := s.RunResult(ctx, "v7")
	require.NoError(t, err)
	require.Equal(t, `{"episodes":1}`, string(result))
	records, turns, err := s.Counts(ctx)
	require.NoError(t, err)
	require.Equal(t, [2]int{1, 1}, [2]int{records, turns})
}

// copyFixture copies a stored results file into the test's directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(name)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "results.db")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	return path
}

// schema lists a file's tables and indexes with the SQL that made them.
func schema(t *testing.T, path string) []string {
	t.Helper()
	return resultstest.Column[string](t, fileDB(t, path), `SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
}
