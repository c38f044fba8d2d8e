package recorded_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
)

func record(run string, stage, index int, s float64) results.Record {
	id := contract.EpisodeWorkflowID(run, 1, stage, index, "c"+string(rune('0'+index)))
	return results.Record{EpisodeID: id, WorkflowID: id, Run: run, Kind: "stream", Pass: 1, Stage: stage, Index: index, Number: index,
		CaseID: "c" + string(rune('0'+index)), Scores: clinic.Scores{S: s}, Labels: []string{"good-ask"}}
}

// store holds run r1 (described, three episodes over two stages, model use
// of two roles) and run h1 (only its one record names it).
func store(t *testing.T) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	require.NoError(t, st.PutRun(ctx, results.Run{Run: "r1", Kind: "stream", WorkflowID: "r1/stream", Spec: json.RawMessage(`{}`), Created: "2026-01-01T00:00:00Z"}))
	for _, r := range []results.Record{record("r1", 1, 1, 0.1), record("r1", 1, 2, 0.2), record("r1", 2, 3, 0.35), record("h1", 1, 1, 0.5)} {
		if r.Run == "h1" {
			r.Kind = "heldout"
		}
		require.NoError(t, st.PutRecord(ctx, r, clinic.Trace{EpisodeID: r.EpisodeID, CaseID: r.CaseID}))
	}
	require.NoError(t, st.AddUsage(ctx, "r1/p1/s01/e0001-c1", results.Usage{Calls: 2, PromptTokens: 10, CompletionTokens: 4, ExtraFields: 3, CachedTokens: 6}, "doctor"))
	require.NoError(t, st.AddUsage(ctx, "r1/p1/s01/e0002-c2", results.Usage{Calls: 1, ExtraFields: 2, CostUSD: 0.5}, "judge"))
	return st
}

// TestRuns: a described run with its means and use summed over its roles,
// then a run only records name; S is the mean over the run's episodes,
// (0.1+0.2+0.35)/3 = 0.21666… rounded to 0.2167, and by stage 0.15 and 0.35.
func TestRuns(t *testing.T) {
	rows, err := recorded.Runs(context.Background(), store(t))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	r1, h1 := rows[0], rows[1]
	require.Equal(t, "r1", r1.Run.Run)
	require.Equal(t, 3, r1.Episodes)
	require.Equal(t, 0.2167, *r1.S)
	require.Len(t, r1.StageMeans, 2)
	require.InDelta(t, 0.15, r1.StageMeans[0].S, 1e-12)
	require.Equal(t, results.Usage{Calls: 3, PromptTokens: 10, CompletionTokens: 4, ExtraFields: 5, CachedTokens: 6, CostUSD: 0.5}, r1.Usage)
	require.Equal(t, results.Run{Run: "h1", Kind: "heldout"}, h1.Run)
	require.Equal(t, 0.5, *h1.S)

	var out bytes.Buffer
	require.NoError(t, recorded.WriteRuns(&out, rows))
	require.Regexp(t, `(?m)^r1 +stream +3 +0\.217 +0\.150 0\.350 +3 +10 +6 +4 +0 +5 +0\.5000 +r1/stream *$`, out.String())
	require.Regexp(t, `(?m)^  doctor +2 +10 +6 +4 +0 +3 +0\.0000 *$`, out.String())
	require.Regexp(t, `(?m)^  judge +1 +0 +0 +0 +0 +2 +0\.5000 *$`, out.String())
	require.Regexp(t, `(?m)^h1 +heldout +1 +0\.500 +0\.500 +0 +0 +0 +0 +0 +0 +0\.0000 +- *$`, out.String())
}

// TestStages: only the runs asked for, labelled by their IDs; no record
// gives an empty list, not null.
func TestStages(t *testing.T) {
	recs, err := store(t).Records(context.Background(), "")
	require.NoError(t, err)
	means, labels := recorded.Stages(recs, []string{"h1"})
	require.Len(t, means, 1)
	require.Equal(t, map[string]string{"h1": "h1"}, labels)
	means, _ = recorded.Stages(recs, nil)
	require.Len(t, means, 3, "h1's stage and r1's two")
	means, labels = recorded.Stages(recs, []string{"none"})
	require.NotNil(t, means)
	require.Empty(t, means)
	require.Empty(t, labels)
}

// TestExport: JSONL is one record and its trace a line; JSON one array,
// empty for a run with no records.
func TestExport(t *testing.T) {
	ctx := context.Background()
	st := store(t)
	var out bytes.Buffer
	require.NoError(t, recorded.Export(ctx, st, "r1", "jsonl", &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	var item struct {
		Record results.Record `json:"record"`
		Trace  clinic.Trace   `json:"trace"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &item))
	require.Equal(t, "r1/p1/s02/e0003-c3", item.Trace.EpisodeID)
	out.Reset()
	require.NoError(t, recorded.Export(ctx, st, "none", "json", &out))
	require.Equal(t, "[]\n", out.String())
	out.Reset()
	require.NoError(t, recorded.Export(ctx, st, "h1", "json", &out))
	require.True(t, strings.HasPrefix(out.String(), "[\n  {\n    \"record\": {"), out.String())

	path := filepath.Join(t.TempDir(), "r1.jsonl")
	require.NoError(t, recorded.ExportFile(ctx, st, "r1", "jsonl", path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 3, strings.Count(string(b), "\n"))
	require.Error(t, recorded.ExportFile(ctx, brokenTraces{st}, "r1", "jsonl", path))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, b, after, "a failed export leaves the earlier export as it was")
	fresh := filepath.Join(t.TempDir(), "r1.jsonl")
	require.Error(t, recorded.ExportFile(ctx, brokenTraces{st}, "r1", "jsonl", fresh))
	require.NoFileExists(t, fresh, "and no file where there was none")
	left, err := os.ReadDir(filepath.Dir(fresh))
	require.NoError(t, err)
	require.Empty(t, left, "no temporary file left behind")
}

// brokenTraces is a store whose traces cannot be read.
type brokenTraces struct{ results.Episodes }

func (brokenTraces) RecordTrace(context.Context, string) (results.Record, clinic.Trace, error) {
	return results.Record{}, clinic.Trace{}, errors.New("disk gone")
}

// TestResolveEpisode: an ID without its case suffix names the one recorded
// episode at that position; a full ID, or a position with no record, stays.
func TestResolveEpisode(t *testing.T) {
	ctx := context.Background()
	st := store(t)
	for in, want := range map[string]string{
		"r1/p1/s01/e0002":    "r1/p1/s01/e0002-c2",
		"r1/p1/s01/e0002-c2": "r1/p1/s01/e0002-c2",
		"r1/p1/s01/e0009":    "r1/p1/s01/e0009",
	} {
		got, err := recorded.ResolveEpisode(ctx, st, in)
		require.NoError(t, err)
		require.Equal(t, want, got, in)
	}
}

// TestCardOf: a card with the episode that wrote it (same run, episode
// number and source case), and one whose run recorded none.
func TestCardOf(t *testing.T) {
	ctx := context.Background()
	st := store(t)
	mem, err := local.Open(ctx, filepath.Join(t.TempDir(), "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	defer mem.Close()
	card := func(id string, n int, source string) clinic.Card {
		return clinic.Card{CardHint: clinic.CardHint{ID: id, Kind: clinic.CardCorrection, Text: "check the urine"}, SearchText: "check the urine",
			Bank: "correction", Run: "r1", Pass: 1, Stage: 1, SourceCase: source, CreatedEpisode: n}
	}
	require.NoError(t, mem.Upsert(ctx, []clinic.Card{card("a", 2, "c2"), card("b", 9, "c9")}))

	c, err := recorded.CardOf(ctx, mem, st, "a")
	require.NoError(t, err)
	require.Equal(t, &recorded.CardEpisode{Case: "c2", Labels: []string{"good-ask"}, S: 0.2, Stage: 1, WorkflowID: "r1/p1/s01/e0002-c2"}, c.Episode)
	var out bytes.Buffer
	require.NoError(t, c.Write(&out)) // "source case" (11 bytes) and the padding of 2 set the column
	require.Equal(t, ""+
		"card         a\n"+
		"kind         correction (bank correction)\n"+
		"text         check the urine\n"+
		"written      run r1, pass 1, stage 1, episode 2; live\n"+
		"source case  c2\n"+
		"retrievals   0 (last at episode 0)\n"+
		"episode      r1/p1/s01/e0002-c2 (stage 1, S=0.200)\n"+
		"labels       good-ask\n", out.String())
	b, err := json.Marshal(c)
	require.NoError(t, err)
	require.Contains(t, string(b), `"episode":{"case":"c2","labels":["good-ask"],"s":0.2,"stage":1,"workflow_id":"r1/p1/s01/e0002-c2"}}`)

	c, err = recorded.CardOf(ctx, mem, st, "b")
	require.NoError(t, err)
	require.Nil(t, c.Episode)
	b, err = json.Marshal(c)
	require.NoError(t, err)
	require.NotContains(t, string(b), `"episode":`)
}

// TestExperiment: the spec an experiment recorded; a name the store does
// not record as an experiment is an error saying where it looked.
func TestExperiment(t *testing.T) {
	ctx := context.Background()
	st := store(t)
	require.NoError(t, st.PutRun(ctx, results.Run{Run: "x", Kind: "experiment", WorkflowID: "x/experiment", Spec: json.RawMessage(`{"name":"x","limit":7}`)}))
	spec, err := recorded.Experiment(ctx, st, "x", "/data")
	require.NoError(t, err)
	require.Equal(t, "x", spec.Name)
	require.Equal(t, 7, spec.Limit)
	_, err = recorded.Experiment(ctx, st, "r1", "/data")
	require.EqualError(t, err, `experiment "r1" is not in /data (pass --file)`)
}

// TestStreamRecords: only the records of the experiment's stream
// conditions, labelled by their titles; a held-out condition's are left out.
func TestStreamRecords(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "q", Conditions: []contract.ConditionSpec{
		{Name: "E1", Label: "E1 (memory)", Kind: contract.KindStream}, {Name: "H0", Kind: contract.KindHeldOut}, {Name: "E2", Kind: contract.KindStream}}}
	recs := []results.Record{record("q-E2", 1, 1, 0.5), record("q-H0", 1, 1, 0.1), record("q-E1", 1, 1, 0.2), record("other", 1, 1, 0)}
	streams, labels := recorded.StreamRecords(spec, recs)
	require.Equal(t, map[string]string{"q-E1": "E1 (memory)", "q-E2": "E2"}, labels)
	require.Len(t, streams, 2)
	require.Equal(t, "q-E2", streams[0].Run)
	require.Equal(t, "q-E1", streams[1].Run)
}
