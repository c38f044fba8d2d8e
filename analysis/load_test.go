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

// TestLoadLive reads an experiment while it runs: its conditions under their
// runs, the finished stream with its stored result, the records so far; Load
// refuses it until the experiment's own result is stored.
func TestLoadLive(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	defer st.Close()
	spec := contract.ExperimentSpec{Name: "live", Corpus: "builtin:stream", StageSize: 2, Conditions: []contract.ConditionSpec{
		{Name: "E0", Kind: contract.KindStream, Memory: contract.MemoryDisabled}, {Name: "E1", Kind: contract.KindStream},
		{Name: "H0", Kind: contract.KindHeldOut}}}
	raw, err := json.Marshal(spec)
	require.NoError(t, err)
	require.NoError(t, st.PutRun(ctx, results.Run{Run: "live", Kind: "experiment", WorkflowID: "live/experiment", Spec: raw, Created: "2026-11-30T10:00:00Z"}))
	for i := 1; i <= 4; i++ {
		r := resultstest.Record("live-E0", i, "stream-0001")
		r.Stage = (i + 1) / 2
		require.NoError(t, st.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 2)))
	}
	r := resultstest.Record("live-E1", 1, "stream-0001")
	require.NoError(t, st.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 2)))
	done, err := json.Marshal(contract.StreamResult{Run: "live-E0", Episodes: 4, StageEnds: []int{2, 4}})
	require.NoError(t, err)
	require.NoError(t, st.CompleteRun(ctx, "live-E0", "stream", done))

	in, finished, err := analysis.LoadLive(ctx, st, testSet(), "live", corpus.Library{}.Load)
	require.NoError(t, err)
	require.False(t, finished)
	require.Len(t, in.Result.Conditions, 3)
	require.Equal(t, []string{"live-E0", "live-E1", "live-H0"}, []string{in.Result.Conditions[0].Run, in.Result.Conditions[1].Run, in.Result.Conditions[2].Run})
	require.Equal(t, []int{2, 4}, in.Result.Conditions[0].Stream.StageEnds, "the finished stream carries its stored result")
	require.Nil(t, in.Result.Conditions[1].Stream, "E1 is still running")
	require.Len(t, in.Records["live-E0"], 4)
	require.Len(t, in.Records["live-E1"], 1)
	rep := analysis.Build(in)
	require.Len(t, rep.Conditions[0].Stages, 2)
	require.Equal(t, 1, rep.Conditions[1].Overall.N)

	_, err = analysis.Load(ctx, st, testSet(), "live")
	require.ErrorContains(t, err, "experiment live has not finished")
	res, err := json.Marshal(contract.ExperimentResult{Name: "live", Conditions: in.Result.Conditions})
	require.NoError(t, err)
	require.NoError(t, st.CompleteRun(ctx, "live", "experiment", res))
	_, finished, err = analysis.LoadLive(ctx, st, testSet(), "live", corpus.Library{}.Load)
	require.NoError(t, err)
	require.True(t, finished)
	_, _, err = analysis.LoadLive(ctx, st, testSet(), "nope", corpus.Library{}.Load)
	require.ErrorIs(t, err, results.ErrNotFound)
}
