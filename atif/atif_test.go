package atif_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/atif"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/inspectlog"
	"github.com/clinevo/clinevo/internal/logschema"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// played is run r1's first n episodes of the built-in stream, played in
// process, with the doctor's use recorded as 300 prompt and 40 completion
// tokens (120 of them cached) for 0.01 USD.
func played(t *testing.T, n int) inspectlog.Input {
	t.Helper()
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: settings.Default()}
	cases := synth.Generate(7)["stream"]
	in := inspectlog.Input{Run: results.Run{Run: "r1", Kind: string(contract.KindStream), Created: "2026-12-02T07:00:00Z"},
		Settings: settings.Default(), Bench: medevoeval.Benchmark{}}
	for i := range n {
		c := cases[i]
		tr, err := runner.Play(context.Background(), c, d, runner.Meta{RunID: "r1", EpisodeID: fmt.Sprintf("r1/p1/s01/e%04d-%s", i+1, c.ID), Number: i + 1})
		require.NoError(t, err)
		rec := results.Record{EpisodeID: tr.EpisodeID, Run: "r1", Kind: string(contract.KindStream), Pass: 1, Stage: 1, Index: i + 1,
			CaseID: c.ID, Scores: clinic.Scores{S: 0.5, Diagnosis: 1}, Final: tr.Final, Termination: tr.Termination, Turns: len(tr.Events),
			Usage: map[string]results.Usage{"doctor": {Calls: 3, PromptTokens: 300, CompletionTokens: 40, CachedTokens: 120, CostUSD: 0.01},
				"patient": {Calls: 2, PromptTokens: 50, CompletionTokens: 10}}}
		in.Episodes = append(in.Episodes, inspectlog.Episode{Record: rec, Trace: tr, Case: &cases[i]})
	}
	return in
}

// TestTrajectories: an episode is a trajectory that validates against the
// pinned ATIF schema: the opening complaint as the user's first step, then
// a step a turn with the action as a tool call and the reply as its
// observation; the FINALIZE call carries the final answer; the doctor's
// use is the final metrics.
func TestTrajectories(t *testing.T) {
	in := played(t, 2)
	ts := atif.Build(in)
	require.Len(t, ts, 2)
	dir := t.TempDir()
	for i, tr := range ts {
		path, err := atif.Write(dir, "r1", tr)
		require.NoError(t, err)
		n, err := logschema.ATIFFile(path)
		require.NoError(t, err)
		ev := in.Episodes[i].Trace.Events
		require.Equal(t, 1+len(ev), n, "the opening and a step a turn")
	}
	tr := ts[0]
	require.Equal(t, filepath.Join("r1", "p1_s01_e0001-"+in.Episodes[0].Record.CaseID+".json"), atif.FileName("r1", tr))
	require.Equal(t, in.Episodes[0].Record.EpisodeID, tr.SessionID)
	require.Equal(t, "user", tr.Steps[0].Source)
	require.Equal(t, in.Episodes[0].Case.Patient.OpeningComplaint, tr.Steps[0].Message)
	replies := 0
	for i, ev := range in.Episodes[0].Trace.Events {
		st := tr.Steps[i+1]
		require.Equal(t, i+2, st.StepID)
		require.Equal(t, "agent", st.Source)
		require.Equal(t, string(ev.Action), st.ToolCalls[0].FunctionName)
		if ev.Reply != "" {
			replies++
			require.Equal(t, st.ToolCalls[0].ToolCallID, st.Observation.Results[0].SourceCallID)
			require.Equal(t, ev.Reply, st.Observation.Results[0].Content)
		}
	}
	require.NotZero(t, replies)
	last := tr.Steps[len(tr.Steps)-1]
	require.Equal(t, string(clinic.Finalize), last.ToolCalls[0].FunctionName)
	require.Equal(t, toAny(in.Episodes[0].Trace.Final.Diagnosis), last.ToolCalls[0].Arguments["diagnosis"])
	require.Equal(t, &atif.FinalMetrics{TotalPromptTokens: 300, TotalCompletionTokens: 40, TotalCachedTokens: 120, TotalCostUSD: 0.01,
		TotalSteps: len(tr.Steps), Extra: map[string]any{"usage_by_role": in.Episodes[0].Record.Usage}}, tr.FinalMetrics)
	require.Equal(t, "clinevo-doctor", tr.Agent.Name)
	require.Empty(t, tr.Agent.ModelName, "a built-in doctor names no model")
	require.NotContains(t, tr.Extra, "epoch", "a run without epochs")

	// The second play of a held-out case: its epoch beside its place in the run.
	in.Episodes[0].Record.Epoch = 2
	require.Equal(t, 2, atif.Build(in)[0].Extra["epoch"])
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// TestToolCall: a KlinikeBench tool call is the tool with its arguments,
// answered by its result; a model doctor is named as the agent's model.
func TestToolCall(t *testing.T) {
	ev := clinic.Event{Turn: 1, Action: klinike.ToolCall, Status: clinic.StatusReturned, Reply: "CT abdomen: appendicitis",
		Rationale: []string{"right lower quadrant pain"},
		Ext:       klinike.WithCall(nil, klinike.CallFields{Tool: "order_imaging", Arguments: json.RawMessage(`{"modality":"CT","region":"abdomen"}`)})}
	s := settings.Default()
	d := s.Roles["doctor"]
	d.Backend, d.Model, d.BaseURL = settings.OpenAI, "m", "http://127.0.0.1:1/v1"
	s.Roles["doctor"] = d
	in := inspectlog.Input{Run: results.Run{Run: "k"}, Settings: s, Bench: klinike.Benchmark{},
		Episodes: []inspectlog.Episode{{Record: results.Record{EpisodeID: "k/p1/s01/e0001-c", Run: "k", CaseID: "c"}, Trace: clinic.Trace{Events: []clinic.Event{ev}}}}}
	tr := atif.Build(in)[0]
	st := tr.Steps[1]
	require.Equal(t, atif.Call{ToolCallID: "turn-1", FunctionName: "order_imaging", Arguments: map[string]any{"modality": "CT", "region": "abdomen"}}, st.ToolCalls[0])
	require.Equal(t, "CT abdomen: appendicitis", st.Observation.Results[0].Content)
	require.Equal(t, "right lower quadrant pain", st.ReasoningContent)
	require.Equal(t, "c", tr.Steps[0].Message, "without its corpus, the case is named")
	require.Contains(t, tr.Agent.ModelName, "/m")
	path, err := atif.Write(t.TempDir(), "k", tr)
	require.NoError(t, err)
	_, err = logschema.ATIFFile(path)
	require.NoError(t, err)
}

// TestSchemaBites: the schema and the checks beside it refuse what Harbor's
// models refuse: a tool call on a user's step, an unknown field, step IDs
// out of order, an observation answering no call of its step.
func TestSchemaBites(t *testing.T) {
	tr := atif.Build(played(t, 1))[0]
	raw, err := json.Marshal(tr)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, want string
		edit       func(m map[string]any)
	}{
		{"tool call on a user step", "tool_calls", func(m map[string]any) {
			step(m, 0)["tool_calls"] = []any{map[string]any{"tool_call_id": "x", "function_name": "f", "arguments": map[string]any{}}}
		}},
		{"unknown field", "mesage", func(m map[string]any) { step(m, 0)["mesage"] = "hi" }},
		{"step IDs out of order", "sequential from 1", func(m map[string]any) { step(m, 1)["step_id"] = 5 }},
		{"an answer to no call", "names no tool call", func(m map[string]any) {
			step(m, 1)["observation"] = map[string]any{"results": []any{map[string]any{"source_call_id": "nope", "content": "x"}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(raw, &m))
			tc.edit(m)
			bad, err := json.Marshal(m)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "t.json")
			require.NoError(t, os.WriteFile(path, bad, 0o644))
			_, err = logschema.ATIFFile(path)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func step(m map[string]any, i int) map[string]any {
	return m["steps"].([]any)[i].(map[string]any)
}

// TestExport: a recorded run's episodes are written a file each into the
// run's folder and said; a run the store lacks is an error and writes
// nothing.
func TestExport(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	in := played(t, 2)
	spec, err := json.Marshal(contract.StreamSpec{RunID: "r1", Corpus: "builtin:stream@7", Settings: settings.Default()})
	require.NoError(t, err)
	in.Run.Spec = spec
	require.NoError(t, store.PutRun(ctx, in.Run))
	for _, e := range in.Episodes {
		require.NoError(t, store.PutRecord(ctx, e.Record, e.Trace))
	}
	set, err := bench.NewSet(medevoeval.Benchmark{})
	require.NoError(t, err)
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, atif.Export(ctx, store, set, "r1", dir, &out))
	require.Equal(t, "wrote "+filepath.Join(dir, "r1")+": 2 trajectories\n", out.String())
	files, err := filepath.Glob(filepath.Join(dir, "r1", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 2)
	for _, f := range files {
		_, err := logschema.ATIFFile(f)
		require.NoError(t, err)
	}
	out.Reset()
	require.ErrorContains(t, atif.Export(ctx, store, set, "nope", t.TempDir(), &out), `run "nope" is not recorded`)
	require.Empty(t, out.String())
}
