package inspectlog_test

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/inspectlog"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// evalLogSchema is inspect_ai's EvalLog schema, derived from its published
// OpenAPI document by scripts/derive-inspect-schema.py, with unknown fields
// refused.
//
//go:embed testdata/eval_log.schema.json
var evalLogSchema []byte

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(evalLogSchema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("eval_log.schema.json", doc))
	s, err := c.Compile("eval_log.schema.json")
	require.NoError(t, err)
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, b []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	return s.Validate(v)
}

// playedRun plays n episodes of the built-in stream in process and records
// them as a run's would be.
func playedRun(t *testing.T, n int) (results.Run, []inspectlog.Episode) {
	t.Helper()
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: settings.Default()}
	cases := synth.Generate(7)["stream"]
	var eps []inspectlog.Episode
	for i := range n {
		c := cases[i]
		tr, err := runner.Play(context.Background(), c, d, runner.Meta{RunID: "r1", EpisodeID: fmt.Sprintf("r1/p1/s01/e%04d-%s", i+1, c.ID), Number: i + 1})
		require.NoError(t, err)
		sc := clinic.Scores{S: 0.25 * float64(i), Diagnosis: 0.5, Strict: i == 2, T: len(tr.Events) - 1, U: -0.1, Metrics: map[string]float64{"grade": 40}}
		tr.Scores = &sc
		rec := results.Record{EpisodeID: tr.EpisodeID, Run: "r1", Kind: string(contract.KindStream), Pass: 1, Stage: 1, Index: i + 1, Number: i + 1,
			CaseID: c.ID, Scores: sc, Final: tr.Final, Termination: tr.Termination, Turns: len(tr.Events),
			Usage: map[string]results.Usage{"doctor": {Model: "m", Calls: 3, PromptTokens: 300, CompletionTokens: 40, CostUSD: 0.01}}}
		eps = append(eps, inspectlog.Episode{Record: rec, Trace: tr, Case: &cases[i]})
	}
	return results.Run{Run: "r1", Kind: "stream", WorkflowID: "r1/stream", Created: "2026-12-02T07:00:00Z"}, eps
}

// TestLogValidates: a run's eval log validates against inspect's schema, holds
// one sample an episode with the opening complaint as input, the turns as
// messages and the scores; and the schema does refuse a wrong log.
func TestLogValidates(t *testing.T) {
	schema := compile(t)
	run, eps := playedRun(t, 3)
	l := inspectlog.Build(run, "clinevo/builtin", eps, medevoeval.Benchmark{})
	dir := t.TempDir()
	path, err := inspectlog.Write(dir, l)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "r1.json"), path)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, validate(t, schema, raw))

	require.Len(t, l.Samples, 3)
	s := l.Samples[0]
	require.Equal(t, eps[0].Case.Patient.OpeningComplaint, s.Input)
	require.Equal(t, eps[0].Case.Manager.Diagnosis.Name, s.Target[0])
	require.Equal(t, "user", s.Messages[0].Role)
	require.Greater(t, len(s.Messages), len(eps[0].Trace.Events), "a message a turn and the replies")
	require.Equal(t, eps[0].Record.Scores.S, s.Scores["s"].Value)
	require.Equal(t, 300, l.Stats.RoleUsage["doctor"].InputTokens/3)
	require.Equal(t, 3, l.Results.TotalSamples)

	// The schema bites: a missing required field and a misspelt one fail.
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	delete(m["eval"].(map[string]any), "task_id")
	bad, _ := json.Marshal(m)
	require.ErrorContains(t, validate(t, schema, bad), "task_id")
	require.NoError(t, json.Unmarshal(raw, &m))
	sample := m["samples"].([]any)[0].(map[string]any)
	sample["mesages"] = sample["messages"]
	bad, _ = json.Marshal(m)
	require.ErrorContains(t, validate(t, schema, bad), "mesages")
}

// TestValidateFile validates an exported log named by CLINEVO_INSPECT_LOG
// (the demo's E1 run: clinevo export inspect quick-E1 --out DIR); skipped
// without one.
func TestValidateFile(t *testing.T) {
	path := os.Getenv("CLINEVO_INSPECT_LOG")
	if path == "" {
		t.Skip("CLINEVO_INSPECT_LOG names no exported log")
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, validate(t, compile(t), raw))
	var l inspectlog.Log
	require.NoError(t, json.Unmarshal(raw, &l))
	require.NotEmpty(t, l.Samples)
	t.Logf("%s: %d samples valid", path, len(l.Samples))
}

// TestLoad: a run recorded in a results store loads with its corpus's cases
// (the opening complaint as input) and validates; an unknown run is an error
// naming it.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	defer store.Close()
	run, eps := playedRun(t, 2)
	spec, err := json.Marshal(contract.StreamSpec{RunID: "r1", Corpus: "builtin:stream@7", Settings: settings.Default()})
	require.NoError(t, err)
	run.Spec = spec
	require.NoError(t, store.PutRun(ctx, run))
	for _, e := range eps {
		require.NoError(t, store.PutRecord(ctx, e.Record, e.Trace))
	}
	l, err := inspectlog.Load(ctx, store, defaultSet(t), "r1")
	require.NoError(t, err)
	require.Len(t, l.Samples, 2)
	require.Equal(t, eps[1].Case.Patient.OpeningComplaint, l.Samples[1].Input)
	raw, err := json.Marshal(l)
	require.NoError(t, err)
	require.NoError(t, validate(t, compile(t), raw))
	_, err = inspectlog.Load(ctx, store, defaultSet(t), "r2")
	require.ErrorContains(t, err, `run "r2" is not recorded`)
}

// defaultSet is the default benchmark alone.
func defaultSet(t testing.TB) bench.Set {
	set, err := bench.NewSet(medevoeval.Benchmark{})
	require.NoError(t, err)
	return set
}
