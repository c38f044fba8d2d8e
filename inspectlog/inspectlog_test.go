package inspectlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

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

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := logschema.Inspect("")
	require.NoError(t, err)
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, b []byte) error {
	t.Helper()
	return logschema.Validate(s, b)
}

// playedRun plays n episodes of the built-in stream in process and records
// them as a run's would be (the run finished at 07:30; each episode took 1.5
// s of diagnosis and 0.25 s of update).
func playedRun(t *testing.T, n int) (results.Run, []inspectlog.Episode) {
	t.Helper()
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: settings.Default()}
	cases := synth.Generate(7)["stream"]
	var eps []inspectlog.Episode
	for i := range n {
		c := cases[i]
		tr, err := runner.Play(context.Background(), c, d, runner.Meta{RunID: "r1", EpisodeID: fmt.Sprintf("r1/p2/s01/e%04d-%s", i+1, c.ID), Number: i + 1})
		require.NoError(t, err)
		sc := clinic.Scores{S: 0.25 * float64(i), Diagnosis: 0.5, Strict: i == 2, T: len(tr.Events) - 1, U: -0.1, Metrics: map[string]float64{"grade": 40}}
		tr.Scores = &sc
		rec := results.Record{EpisodeID: tr.EpisodeID, Run: "r1", Kind: string(contract.KindStream), Pass: 2, Stage: 1, Index: i + 1, Number: i + 1,
			CaseID: c.ID, Scores: sc, Final: tr.Final, Termination: tr.Termination, Turns: len(tr.Events),
			Usage:  map[string]results.Usage{"doctor": {Model: "m", Calls: 3, PromptTokens: 300, CompletionTokens: 40, CostUSD: 0.01}},
			TimeMS: map[string]float64{results.PhaseDiagnose: 1500, results.PhaseUpdate: 250}}
		eps = append(eps, inspectlog.Episode{Record: rec, Trace: tr, Case: &cases[i]})
	}
	return results.Run{Run: "r1", Kind: "stream", WorkflowID: "r1/stream", Created: "2026-12-02T07:00:00Z", Completed: "2026-12-02T07:30:00Z"}, eps
}

// describedRun is a results store that describes stream r1 (playedRun's
// two episodes, on builtin:stream@7), with the run and its episodes, which
// it does not hold yet.
func describedRun(t *testing.T) (*sqlite.Store, results.Run, []inspectlog.Episode) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	run, eps := playedRun(t, 2)
	spec, err := json.Marshal(contract.StreamSpec{RunID: "r1", Corpus: "builtin:stream@7", Settings: settings.Default()})
	require.NoError(t, err)
	run.Spec = spec
	require.NoError(t, store.PutRun(ctx, run))
	return store, run, eps
}

// modelDoctor is the default settings with the doctor on model m of an
// OpenAI-compatible server (the other roles built in).
func modelDoctor() settings.Settings {
	s := settings.Default()
	d := s.Roles["doctor"]
	d.Backend, d.Model, d.BaseURL = settings.OpenAI, "m", "http://127.0.0.1:1/v1"
	s.Roles["doctor"] = d
	return s
}

// inspectName is inspect's own test of a log file's name (log_file_pattern
// in src/inspect_ai/log/_file.py at the pinned commit): `inspect view
// --log-dir` lists a .json file only when its name matches.
var inspectName = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*$`)

// TestLogValidates: a run's eval log validates against inspect's schema and
// is named so that inspect lists it; it holds one sample an episode with the
// opening complaint as input, the turns as messages and events, the scores
// with S first in the results; and the schema does refuse a wrong log.
func TestLogValidates(t *testing.T) {
	schema := compile(t)
	run, eps := playedRun(t, 3)
	l := inspectlog.Build(inspectlog.Input{Run: run, Settings: modelDoctor(), Bench: medevoeval.Benchmark{}, Episodes: eps})
	dir := t.TempDir()
	path, err := inspectlog.Write(dir, l, inspectlog.FormatJSON)
	require.NoError(t, err)
	// 07:00:00Z as inspect writes it, 2026-12-02T07:00:00+00:00, with ":"
	// and "+" as "-"; the task is the run.
	require.Equal(t, filepath.Join(dir, "2026-12-02T07-00-00-00-00_r1_"+l.Eval.TaskID+".json"), path)
	require.Regexp(t, inspectName, filepath.Base(path))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, validate(t, schema, raw))

	require.Equal(t, "success", l.Status)
	require.Equal(t, "2026-12-02T07:30:00+00:00", l.Stats.CompletedAt)
	require.Len(t, l.Samples, 3)
	s := l.Samples[0]
	require.Equal(t, eps[0].Case.Patient.OpeningComplaint, s.Input)
	require.Equal(t, eps[0].Case.Manager.Diagnosis.Name, s.Target[0])
	require.Equal(t, "user", s.Messages[0].Role)
	require.Greater(t, len(s.Messages), len(eps[0].Trace.Events), "a message a turn and the replies")
	require.Equal(t, eps[0].Record.Scores.S, s.Scores["s"].Value)
	require.NotEmpty(t, s.Scores["s"].Explanation, "S says how it was computed")
	require.NotEmpty(t, s.Scores["diagnosis"].Explanation)
	require.Equal(t, 300, l.Stats.RoleUsage["doctor"].InputTokens/3)
	require.Equal(t, 3, l.Results.TotalSamples)
	// 1.5 s of diagnosis and 0.25 s of update.
	require.InDelta(t, 1.75, *s.WorkingTime, 1e-12)

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

// TestHeldOutEpochs: a held-out run of 3 cases over 2 epochs exports with
// config.epochs 2, each sample with its record's epoch (whatever order the
// records come in), and 3 dataset samples.
func TestHeldOutEpochs(t *testing.T) {
	run, eps := playedRun(t, 3)
	var all []inspectlog.Episode
	for k := 2; k >= 1; k-- { // the second epoch first: the epoch is the record's, not the count
		for _, e := range eps {
			e.Record.Epoch = k
			e.Record.EpisodeID = contract.EpochEpisodeID("r1", 1, 1, e.Record.Index, k, e.Record.CaseID)
			all = append(all, e)
		}
	}
	l := inspectlog.Build(inspectlog.Input{Run: run, Settings: settings.Default(), Bench: medevoeval.Benchmark{}, Episodes: all})
	require.Equal(t, 2, l.Eval.Config.Epochs)
	require.Equal(t, 3, l.Eval.Dataset.Samples)
	var got []int
	for _, s := range l.Samples {
		got = append(got, s.Epoch)
	}
	require.Equal(t, []int{2, 2, 2, 1, 1, 1}, got)
	require.Equal(t, l.Samples[0].ID, l.Samples[3].ID)
}

// TestResultsAndSamples: results.scores holds one entry a sample score,
// named as the samples name them, S first; a sample's epoch counts the
// case's repetitions in the log, not the stream's pass (pass 2, once each:
// epoch 1); samples have distinct UUIDs.
func TestResultsAndSamples(t *testing.T) {
	run, eps := playedRun(t, 3)
	again := eps[0]
	again.Record.EpisodeID, again.Record.Index = "r1/p2/s01/e0004-"+again.Record.CaseID, 4
	eps = append(eps, again)
	l := inspectlog.Build(inspectlog.Input{Run: run, Settings: settings.Default(), Bench: medevoeval.Benchmark{}, Episodes: eps})
	require.Equal(t, "s", l.Results.Scores[0].Name)
	// The mean S of 0, 0.25, 0.5 and 0 again: 0.75/4.
	require.InDelta(t, 0.1875, l.Results.Scores[0].Metrics["mean"].Value, 1e-12)
	for _, es := range l.Results.Scores {
		require.Contains(t, l.Samples[0].Scores, es.Name)
	}
	require.Len(t, l.Results.Scores, len(l.Samples[0].Scores))
	require.Equal(t, []int{1, 1, 1, 2}, []int{l.Samples[0].Epoch, l.Samples[1].Epoch, l.Samples[2].Epoch, l.Samples[3].Epoch})
	require.Equal(t, l.Samples[0].ID, l.Samples[3].ID)
	require.Equal(t, 2, l.Eval.Config.Epochs)
	require.Equal(t, 3, l.Eval.Dataset.Samples)
	require.Equal(t, 2, l.Samples[0].Metadata["pass"])
	uuids := map[string]bool{}
	for _, s := range l.Samples {
		require.NotEmpty(t, s.UUID)
		uuids[s.UUID] = true
	}
	require.Len(t, uuids, 4)
	run.Completed = ""
	require.Equal(t, "started", inspectlog.Build(inspectlog.Input{Run: run, Settings: settings.Default(), Episodes: eps}).Status)
}

// TestEvents: each turn is an inspect event: a model event with the
// transcript before the turn as input and the action as output when the
// doctor is a model (an info event when built in), the built-in patient's
// answers as info events, a tool call as a tool event; then a score event a
// score. The log validates with them.
func TestEvents(t *testing.T) {
	run, eps := playedRun(t, 1)
	kinds := func(evs []any) map[string]int {
		out := map[string]int{}
		for _, e := range evs {
			b, err := json.Marshal(e)
			require.NoError(t, err)
			var head struct{ Event, Role, Source string }
			require.NoError(t, json.Unmarshal(b, &head))
			out[head.Event+"/"+head.Role+head.Source]++
		}
		return out
	}
	tr := eps[0].Trace
	replies := 0
	for _, ev := range tr.Events {
		if ev.Reply != "" && ev.Action != clinic.Finalize {
			replies++
		}
	}
	l := inspectlog.Build(inspectlog.Input{Run: run, Settings: modelDoctor(), Bench: medevoeval.Benchmark{}, Episodes: eps})
	s := l.Samples[0]
	got := kinds(s.Events)
	require.Equal(t, len(tr.Events), got["model/doctor"])
	require.Equal(t, len(s.Scores), got["score/"])
	require.Equal(t, replies, got["info/clinevo/patient"]+got["info/clinevo/exam"]+got["info/clinevo/consultant"]+got["info/clinevo/environment"])
	first := s.Events[0].(inspectlog.ModelEvent)
	require.Equal(t, []inspectlog.Message{s.Messages[0]}, first.Input, "the first turn sees the opening complaint")
	require.Equal(t, s.Messages[1].Content, first.Output.Completion)
	raw, err := json.Marshal(l)
	require.NoError(t, err)
	require.NoError(t, validate(t, compile(t), raw))

	builtin := inspectlog.Build(inspectlog.Input{Run: run, Settings: settings.Default(), Bench: medevoeval.Benchmark{}, Episodes: eps})
	require.Equal(t, len(tr.Events), kinds(builtin.Samples[0].Events)["info/clinevo/doctor"])

	t.Run("a tool call", func(t *testing.T) {
		ev := clinic.Event{Turn: 1, Action: klinike.ToolCall, Status: clinic.StatusReturned, Reply: "CT abdomen: appendicitis",
			Ext: klinike.WithCall(nil, klinike.CallFields{Tool: "order_imaging", Arguments: json.RawMessage(`{"modality":"CT","region":"abdomen"}`)})}
		e := inspectlog.Episode{Record: results.Record{EpisodeID: "k/p1/s01/e0001-c", Run: "k", CaseID: "c"}, Trace: clinic.Trace{Events: []clinic.Event{ev}}}
		kl := inspectlog.Build(inspectlog.Input{Run: run, Settings: settings.Default(), Bench: klinike.Benchmark{}, Episodes: []inspectlog.Episode{e}})
		tool := kl.Samples[0].Events[1].(inspectlog.ToolEvent)
		require.Equal(t, "order_imaging", tool.Function)
		require.Equal(t, map[string]any{"modality": "CT", "region": "abdomen"}, tool.Arguments)
		require.Equal(t, "CT abdomen: appendicitis", tool.Result)
		raw, err := json.Marshal(kl)
		require.NoError(t, err)
		require.NoError(t, validate(t, compile(t), raw))
	})
}

// TestValidateFile validates an exported log, .json or .eval, named by
// CLINEVO_INSPECT_LOG (the demo's E1 run: clinevo export inspect quick-E1
// --out DIR); skipped without one.
func TestValidateFile(t *testing.T) {
	path := os.Getenv("CLINEVO_INSPECT_LOG")
	if path == "" {
		t.Skip("CLINEVO_INSPECT_LOG names no exported log")
	}
	n, err := logschema.InspectFile(path)
	require.NoError(t, err)
	require.NotZero(t, n)
	t.Logf("%s: %d samples valid", path, n)
}

// TestLoad: a recorded stream loads with its corpus's cases; a stage
// evaluation the runs table lacks loads with its stream's times; an
// experiment gives one log a condition with episodes, its held-out
// condition with the experiment's times; every log validates; an unknown
// run is an error naming it.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	store, run, eps := describedRun(t)
	require.NoError(t, store.CompleteRun(ctx, "r1", run.Kind, []byte(`{}`)))
	exp := contract.ExperimentSpec{Name: "x", Corpus: "builtin:stream@7", HeldOut: "builtin:stream@7", Base: settings.Default(),
		Conditions: []contract.ConditionSpec{{Name: "E1", Kind: contract.KindStream}, {Name: "H0", Kind: contract.KindHeldOut}}}
	espec, err := json.Marshal(exp)
	require.NoError(t, err)
	require.NoError(t, store.PutRun(ctx, results.Run{Run: "x", Kind: string(contract.KindExperiment), WorkflowID: "x/experiment", Spec: espec, Created: "2026-12-03T09:00:00Z"}))
	require.NoError(t, store.CompleteRun(ctx, "x", string(contract.KindExperiment), []byte(`{}`)))
	put := func(runID, kind string) {
		for _, e := range eps {
			r := e.Record
			r.Run, r.Kind, r.EpisodeID = runID, kind, runID+"/"+r.EpisodeID
			require.NoError(t, store.PutRecord(ctx, r, e.Trace))
		}
	}
	put("r1", string(contract.KindStream))
	put(contract.StageEvalRunID("r1", 1), string(contract.KindStageEval))
	put("x-H0", string(contract.KindHeldOut))

	for _, tc := range []struct {
		run     string
		logs    []string // the runs of the logs
		created string
	}{
		{"r1", []string{"r1"}, "2026-12-02T07:00:00+00:00"},
		{contract.StageEvalRunID("r1", 1), []string{contract.StageEvalRunID("r1", 1)}, "2026-12-02T07:00:00+00:00"},
		{"x-H0", []string{"x-H0"}, "2026-12-03T09:00:00+00:00"},
		{"x", []string{"x-H0"}, "2026-12-03T09:00:00+00:00"}, // E1 has no episode
	} {
		t.Run(tc.run, func(t *testing.T) {
			logs, err := inspectlog.Load(ctx, store, defaultSet(t), tc.run)
			require.NoError(t, err)
			var got []string
			for _, l := range logs {
				got = append(got, l.Metadata["clinevo_run"].(string))
				require.Len(t, l.Samples, 2)
				require.Equal(t, eps[1].Case.Patient.OpeningComplaint, l.Samples[1].Input)
				require.Equal(t, tc.created, l.Eval.Created)
				require.Equal(t, "success", l.Status)
				require.NotEmpty(t, l.Stats.CompletedAt)
				raw, err := json.Marshal(l)
				require.NoError(t, err)
				require.NoError(t, validate(t, compile(t), raw))
			}
			require.Equal(t, tc.logs, got)
		})
	}
	_, err = inspectlog.Load(ctx, store, defaultSet(t), "r2")
	require.ErrorContains(t, err, `run "r2" is not recorded`)
}

// defaultSet is the default benchmark alone.
func defaultSet(t testing.TB) bench.Set {
	set, err := bench.NewSet(medevoeval.Benchmark{})
	require.NoError(t, err)
	return set
}

// TestExport: a run's log is written into the directory and said with its
// samples; a run the store does not record is the error, and writes
// nothing.
func TestExport(t *testing.T) {
	ctx := context.Background()
	store, _, eps := describedRun(t)
	for _, e := range eps {
		require.NoError(t, store.PutRecord(ctx, e.Record, e.Trace))
	}
	dir := filepath.Join(t.TempDir(), "logs")
	var out bytes.Buffer
	require.NoError(t, inspectlog.Export(ctx, store, defaultSet(t), "r1", dir, inspectlog.FormatJSON, &out))
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, files, 1)
	require.Equal(t, "wrote "+filepath.Join(dir, files[0].Name())+": 2 samples\n", out.String())

	out.Reset()
	empty := t.TempDir()
	require.Error(t, inspectlog.Export(ctx, store, defaultSet(t), "nope", empty, inspectlog.FormatJSON, &out))
	require.Empty(t, out.String())
	files, err = os.ReadDir(empty)
	require.NoError(t, err)
	require.Empty(t, files)
}
