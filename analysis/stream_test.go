package analysis_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/resultstest"
	"github.com/clinevo/clinevo/results/sqlite"
)

// TestLoadStream reads one stream as a report of one condition named by its
// run: its own records and its stage evaluation's, not those of a stream
// whose run ID it prefixes; it refuses the stream until its result is stored,
// and a name that is no stream in the store.
func TestLoadStream(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	defer st.Close()
	for _, run := range []string{"s1", "s10"} {
		spec, err := json.Marshal(contract.StreamSpec{RunID: run, Corpus: "builtin:stream", StageSize: 2, Pass: 1,
			Memory: contract.MemoryEmpty, StageEval: true})
		require.NoError(t, err)
		require.NoError(t, st.PutRun(ctx, results.Run{Run: run, Kind: "stream", WorkflowID: run + "/stream", Spec: spec,
			Created: "2026-12-02T10:00:00Z"}))
	}
	put := func(run string, i int, s float64) {
		r := resultstest.Record(run, i, "stream-0001")
		r.Stage, r.Scores.S = (i+1)/2, s
		require.NoError(t, st.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 2)))
	}
	for i := 1; i <= 4; i++ {
		put("s1", i, 0.25*float64(i))
		put("s10", i, 0)
	}
	put(contract.StageEvalRunID("s1", 1), 1, 1)
	put(contract.StageEvalRunID("s1", 1), 2, 1)

	_, err = analysis.LoadStream(ctx, st, testSet(), "s1", corpus.Library{}.Load)
	require.ErrorContains(t, err, "stream s1 has not finished (see clinevo stream status s1)")

	done, err := json.Marshal(contract.StreamResult{Run: "s1", Episodes: 4, StageEnds: []int{2, 4}})
	require.NoError(t, err)
	require.NoError(t, st.CompleteRun(ctx, "s1", "stream", done))
	in, err := analysis.LoadStream(ctx, st, testSet(), "s1", corpus.Library{}.Load)
	require.NoError(t, err)
	require.Len(t, in.Records["s1"], 4)
	require.Len(t, in.Records[contract.StageEvalRunID("s1", 1)], 2)
	require.NotContains(t, in.Records, "s10", "another stream's records stay out")
	require.Len(t, in.Records, 2)

	rep := analysis.Build(in)
	require.Equal(t, "s1", rep.Stream)
	require.Empty(t, rep.Experiment)
	require.Len(t, rep.Conditions, 1)
	c := rep.Conditions[0]
	require.Equal(t, "s1", c.Run)
	require.Equal(t, 4, c.Overall.N)
	require.Len(t, c.Stages, 2)
	require.InDelta(t, 0.375, c.Stages[0].S, 1e-9, "stage 1: S 0.25 and 0.5")
	require.InDelta(t, 0.875, c.Stages[1].S, 1e-9, "stage 2: S 0.75 and 1")

	_, err = analysis.LoadStream(ctx, st, testSet(), "nope", corpus.Library{}.Load)
	require.ErrorIs(t, err, results.ErrNotFound)
}
