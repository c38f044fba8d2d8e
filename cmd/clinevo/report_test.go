package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/view"
)

// TestStoppedStreamAndItsReport: a stream of 200 episodes stopped by `stream
// stop` after some of them reads as stopped, not completed, in `stream
// status` (table and JSON) and on the viewer's index with Temporal running;
// `report RUN` writes its report as one condition named by the run, over
// exactly the episodes it played, with its stage evaluations; a stream that
// has not finished is refused, naming `stream status`.
func TestStoppedStreamAndItsReport(t *testing.T) {
	env := enginetest.Start(t)
	ctx := context.Background()
	cli := map[string]string{"CLINEVO_TEMPORAL_ADDRESS": env.Server.Address()}
	r, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "stopme", Corpus: "builtin:stream", Limit: 200, StageSize: 4, StageEval: true})
	require.NoError(t, err)
	enginetest.Eventually(t, 2*time.Minute, "two stages of the stream recorded", func() bool {
		recs, err := env.Engine.Results.Records(ctx, "stopme")
		return err == nil && len(recs) >= 8
	})
	out, err := run(t, cli, "--data-dir", env.DataDir, "report", "stopme")
	require.ErrorContains(t, err, "stream stopme has not finished (see clinevo stream status stopme)", out)

	_, err = run(t, cli, "--data-dir", env.DataDir, "stream", "stop", "stopme")
	require.NoError(t, err)
	var res contract.StreamResult
	require.NoError(t, r.Get(ctx, &res))
	require.True(t, res.Stopped)
	require.Less(t, res.Episodes, 200)
	require.GreaterOrEqual(t, res.Episodes, 8)

	out, err = run(t, cli, "--data-dir", env.DataDir, "stream", "status", "stopme", "--json")
	require.NoError(t, err)
	var st runstatus.Stream
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	require.Equal(t, runstatus.StatusStopped, st.Status)
	out, err = run(t, cli, "--data-dir", env.DataDir, "stream", "status", "stopme")
	require.NoError(t, err)
	require.Regexp(t, `status\s+stopped\n`, out)

	srv, err := view.New(view.Options{Results: env.Engine.Results, Memory: env.Engine.Memory, Workflows: view.Temporal(env.Client)})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusOK, w.Code)
	index, err := io.ReadAll(w.Body)
	require.NoError(t, err)
	require.Regexp(t, `data-run="stopme"[^\n]*s-stopped`, string(index))
	require.NotRegexp(t, `data-run="stopme"[^\n]*s-completed`, string(index))

	dir := filepath.Join(t.TempDir(), "rep")
	out, err = run(t, cli, "--data-dir", env.DataDir, "report", "stopme", "--out", dir)
	require.NoError(t, err)
	require.Contains(t, out, "report: "+filepath.Join(dir, "index.html"))
	raw, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var rep struct {
		Experiment string                     `json:"experiment"`
		Stream     string                     `json:"stream"`
		Conditions []analysis.ConditionReport `json:"conditions"`
		Retention  []analysis.Retention       `json:"retention"`
		Provenance analysis.Provenance        `json:"provenance"`
	}
	require.NoError(t, json.Unmarshal(raw, &rep))
	require.Equal(t, "stopme", rep.Stream)
	require.Empty(t, rep.Experiment)
	require.Len(t, rep.Conditions, 1)
	c := rep.Conditions[0]
	require.Equal(t, "stopme", c.Run)
	require.Equal(t, res.Episodes, c.Overall.N, "the episodes the stopped stream played")
	n := 0
	for _, s := range c.Stages {
		n += s.N
	}
	require.Equal(t, res.Episodes, n)
	require.Len(t, c.Stages, (res.Episodes+3)/4, "stages of 4")
	require.Len(t, c.Running, res.Episodes)
	require.Len(t, rep.Retention, 1, "the stage evaluations give the diagonal")
	require.NotNil(t, rep.Retention[0].S[0][0])
	require.Len(t, rep.Provenance.Conditions, 1)
	require.Equal(t, "stopme", rep.Provenance.Conditions[0].Run)
	require.NotEmpty(t, rep.Provenance.Conditions[0].SettingsDigest)
	require.NotEmpty(t, rep.Provenance.Finished)
	var spec map[string]any
	require.NoError(t, json.Unmarshal(rep.Provenance.Spec, &spec))
	require.Equal(t, "stopme", spec["run_id"])
	require.NotContains(t, spec, "settings")
	for _, f := range []string{"index.html", "stages.csv", "episodes.csv"} {
		info, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.Positive(t, info.Size(), f)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "<h1>clinevo report: stream stopme</h1>")
}
