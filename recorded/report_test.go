package recorded_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/resultstest"
	"github.com/clinevo/clinevo/results/sqlite"
)

// finished is a store that holds finished experiment q: stream condition
// E1 (two episodes of stage 1, S 1 each) and held-out condition H0 (one
// episode); and finished stream s1 (two episodes).
func finished(t *testing.T) (*sqlite.Store, contract.ExperimentSpec) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	spec := contract.ExperimentSpec{Name: "q", Corpus: "builtin:stream", HeldOut: "builtin:heldout", StageSize: 2, Conditions: []contract.ConditionSpec{
		{Name: "E1", Label: "E1 (memory)", Kind: contract.KindStream}, {Name: "H0", Kind: contract.KindHeldOut}}}
	raw, err := json.Marshal(spec)
	require.NoError(t, err)
	require.NoError(t, st.PutRun(ctx, results.Run{Run: "q", Kind: "experiment", WorkflowID: "q/experiment", Spec: raw, Created: "2026-12-01T10:00:00Z"}))
	stream, err := json.Marshal(contract.StreamSpec{RunID: "s1", Corpus: "builtin:stream", StageSize: 2, Pass: 1, Memory: contract.MemoryEmpty})
	require.NoError(t, err)
	require.NoError(t, st.PutRun(ctx, results.Run{Run: "s1", Kind: "stream", WorkflowID: "s1/stream", Spec: stream, Created: "2026-12-01T11:00:00Z"}))
	for _, r := range []results.Record{resultstest.Record("q-E1", 1, "stream-0001"), resultstest.Record("q-E1", 2, "stream-0002"),
		resultstest.Record("q-H0", 1, "heldout-0001"), resultstest.Record("s1", 1, "stream-0001"), resultstest.Record("s1", 2, "stream-0002")} {
		if r.Run == "q-H0" {
			r.Kind = "heldout"
		}
		require.NoError(t, st.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 2)))
	}
	e1 := contract.StreamResult{Run: "q-E1", Episodes: 2, StageEnds: []int{2}}
	for run, res := range map[string]any{"q-E1": e1, "s1": contract.StreamResult{Run: "s1", Episodes: 2, StageEnds: []int{2}},
		"q": contract.ExperimentResult{Name: "q", Conditions: []contract.ConditionResult{{Name: "E1", Run: "q-E1", Stream: &e1}, {Name: "H0", Run: "q-H0"}}}} {
		b, err := json.Marshal(res)
		require.NoError(t, err)
		kind := "stream"
		if run == "q" {
			kind = "experiment"
		}
		require.NoError(t, st.CompleteRun(ctx, run, kind, b))
	}
	return st, spec
}

func medevoevalSet(t *testing.T) bench.Set {
	set, err := bench.NewSet(medevoeval.Benchmark{})
	require.NoError(t, err)
	return set
}

// TestWriteDemo: the demo's stream conditions' stage table, the report's
// summary, and where the report, the stores and an episode are.
func TestWriteDemo(t *testing.T) {
	st, spec := finished(t)
	dir := t.TempDir()
	var out strings.Builder
	require.NoError(t, recorded.WriteDemo(context.Background(), &out, st, medevoevalSet(t), spec, dir))
	require.Regexp(t, `^\n +stage +run +n +S `, out.String(), "a blank line, then the stage table")
	require.Regexp(t, `(?m)^ +1 +E1 \(memory\) +2 +1\.000 `, out.String(), "only the stream condition, by its label: two episodes of S 1")
	require.NotContains(t, out.String(), "q-H0  ")
	require.True(t, strings.HasSuffix(out.String(), "\nreport:  "+filepath.Join(dir, "report", "index.html")+"\n"+
		"results: "+dir+" (results.db, memory.db, temporal.db; the server's log: temporal.log)\n"+
		"inspect: clinevo --data-dir "+dir+" runs list | runs stages | memory stats\n"+
		"         clinevo --data-dir "+dir+" episode show q-E1/p1/s01/e0001-stream-0001\n"), out.String())
	require.FileExists(t, filepath.Join(dir, "report", "index.html"))

	spec.Conditions = spec.Conditions[1:] // no stream condition: no episode to point at
	out.Reset()
	require.NoError(t, recorded.WriteDemo(context.Background(), &out, st, medevoevalSet(t), spec, dir))
	require.True(t, strings.HasSuffix(out.String(), "memory stats\n"), out.String())
}

// TestWriteReport: a stream's or an experiment's report is written, its
// summary printed with where its page is; a name no run has is the error.
func TestWriteReport(t *testing.T) {
	st, _ := finished(t)
	for _, name := range []string{"s1", "q"} {
		dir := t.TempDir()
		var out strings.Builder
		require.NoError(t, recorded.WriteReport(context.Background(), &out, st, medevoevalSet(t), name, dir))
		require.True(t, strings.HasSuffix(out.String(), "\nreport: "+filepath.Join(dir, "index.html")+"\n"), out.String())
		require.FileExists(t, filepath.Join(dir, "index.html"))
	}
	require.Error(t, recorded.WriteReport(context.Background(), &strings.Builder{}, st, medevoevalSet(t), "nope", t.TempDir()))
}

// TestEpisodeOf: an episode by its ID or its position, with its record and
// trace, whose JSON is {"record", "trace"}; one not recorded is the error.
func TestEpisodeOf(t *testing.T) {
	ctx := context.Background()
	st := store(t)
	e, err := recorded.EpisodeOf(ctx, st, "r1/p1/s01/e0002")
	require.NoError(t, err)
	require.Equal(t, "r1/p1/s01/e0002-c2", e.Record.EpisodeID)
	require.Equal(t, "c2", e.Trace.CaseID)
	b, err := json.Marshal(e)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), `{"record":{"episode_id":"r1/p1/s01/e0002-c2",`), string(b))
	require.Contains(t, string(b), `,"trace":{`)
	_, err = recorded.EpisodeOf(ctx, st, "r1/p1/s01/e0009")
	require.ErrorIs(t, err, results.ErrNotFound)
}

// TestExportFormat: jsonl or json, --json winning; another is refused.
func TestExportFormat(t *testing.T) {
	for _, tc := range []struct {
		format string
		asJSON bool
		want   string
	}{{"jsonl", false, "jsonl"}, {"json", false, "json"}, {"jsonl", true, "json"}, {"csv", true, "json"}} {
		got, err := recorded.ExportFormat(tc.format, tc.asJSON)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	_, err := recorded.ExportFormat("csv", false)
	require.EqualError(t, err, `runs export: --format "csv", want jsonl or json`)
}

// TestResumeSpec: the spec in the file given, else the one the experiment
// recorded; a spec of another experiment is refused, naming both.
func TestResumeSpec(t *testing.T) {
	ctx := context.Background()
	st, _ := finished(t)
	load := func(name string) func(string) (contract.ExperimentSpec, error) {
		return func(string) (contract.ExperimentSpec, error) { return contract.ExperimentSpec{Name: name}, nil }
	}
	spec, err := recorded.ResumeSpec(ctx, st, "q", "/data", "", load("other"))
	require.NoError(t, err)
	require.Len(t, spec.Conditions, 2, "the recorded spec")
	spec, err = recorded.ResumeSpec(ctx, st, "q", "/data", "q.yaml", load("q"))
	require.NoError(t, err)
	require.Empty(t, spec.Conditions, "the file's spec")
	_, err = recorded.ResumeSpec(ctx, st, "q", "/data", "x.yaml", load("x"))
	require.EqualError(t, err, "experiment resume q: x.yaml names experiment x")
	bad := errors.New("x.yaml: line 3: unknown field")
	_, err = recorded.ResumeSpec(ctx, st, "q", "/data", "x.yaml", func(string) (contract.ExperimentSpec, error) { return contract.ExperimentSpec{}, bad })
	require.ErrorIs(t, err, bad)
	_, err = recorded.ResumeSpec(ctx, st, "nope", "/data", "", load("nope"))
	require.EqualError(t, err, `experiment "nope" is not in /data (pass --file)`)
}

// TestWriteEpisodeNamesCards: `episode show` names the cards a turn retrieved
// and those the episode retrieved, wrote and evicted (it gave counts only),
// so that `memory show ID` can follow any of them.
func TestWriteEpisodeNamesCards(t *testing.T) {
	rec := resultstest.Record("r1", 1, "c1")
	rec.Retrieved, rec.Written = []string{"card-a", "card-b"}, []string{"card-c"}
	tr := resultstest.Trace(rec.EpisodeID, rec.CaseID, 2)
	tr.Events[0].RetrievedCards = []string{"card-a", "card-b"}
	var out strings.Builder
	recorded.WriteEpisode(&out, rec, tr, nil)
	require.Contains(t, out.String(), "\n     cards: 2 retrieved: card-a, card-b\n")
	require.Contains(t, out.String(), "cards: 2 retrieved, 1 written, 0 evicted; rule edits: \n  retrieved: card-a, card-b\n  written: card-c\nhistory: ")
	require.NotContains(t, out.String(), "evicted: ")
}
