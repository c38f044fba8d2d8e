package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// resumeCase is one stream's records for ResumeState: episode i has S = i/10,
// T = i, is strict when i is even, and the rule book after it holds i rules.
type resumeCase struct {
	name      string
	spec      contract.StreamSpec // run "r", builtin corpus, cases c01..c10 unless set
	recorded  []int               // indexes of the recorded episodes, in order
	evaluated map[int]bool        // stages whose evaluation finished
	want      contract.StreamState
	wantErr   string
}

func caseIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%02d", i+1)
	}
	return out
}

// book is the rule book recorded after episode i: i rules.
func book(i int) []clinic.Rule {
	out := []clinic.Rule{}
	for k := 1; k <= i; k++ {
		out = append(out, clinic.Rule{ID: fmt.Sprintf("rule-%d", k), Text: "ASK onset", Created: k})
	}
	return out
}

func resumeRecords(spec contract.StreamSpec, ids []string, indexes []int) []results.Record {
	spec = spec.WithDefaults()
	var out []results.Record
	for _, i := range indexes {
		out = append(out, results.Record{EpisodeID: contract.EpisodeWorkflowID(spec.RunID, spec.Pass, (i-1)/spec.StageSize+1, i, ids[i-1]),
			Run: spec.RunID, Kind: string(contract.KindStream), Index: i, CaseID: ids[i-1], Termination: clinic.EndFinalized,
			Scores: clinic.Scores{S: float64(i) / 10, Strict: i%2 == 0, T: i}, RuleBook: book(i)})
	}
	return out
}

// totals sums episodes lo..hi as the stream does.
func totals(lo, hi int) contract.Totals {
	var t contract.Totals
	for i := lo; i <= hi; i++ {
		t.Add(contract.ScoreSummary{S: float64(i) / 10, Strict: i%2 == 0, T: i, Termination: string(clinic.EndFinalized)})
	}
	return t
}

func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func withInterval(s contract.StreamSpec, n int) contract.StreamSpec {
	s.Settings = settings.Default()
	s.Settings.Evolver.UpdateInterval = n
	return s
}

func TestResumeState(t *testing.T) {
	t.Parallel() // see TestMain
	base := contract.StreamSpec{RunID: "r", Corpus: "builtin:stream", StageSize: 4}
	evalSpec := base
	evalSpec.StageEval = true
	carry := base
	carry.Memory, carry.CarryFrom, carry.FirstEpisode = contract.MemoryCarry, []string{"r0"}, 20
	for _, tc := range []resumeCase{
		{name: "nothing recorded: from the start", spec: base, want: contract.StreamState{}},
		{name: "failed at episode 7: after episode 6, stage 1 closed", spec: base, recorded: upTo(6),
			// Totals: S = (1+…+6)/10 = 2.1, strict 2, 4, 6 = 3, T = 21; this stage: episodes 5 and 6.
			want: contract.StreamState{Cursor: 6, RuleBook: book(6), Totals: totals(1, 6), Stage: totals(5, 6),
				StageEnds: []int{4}, RuleSnapshots: [][]clinic.Rule{book(4)}}},
		{name: "a gap: up to the last episode before it", spec: base, recorded: []int{1, 2, 4, 5},
			want: contract.StreamState{Cursor: 2, RuleBook: book(2), Totals: totals(1, 2), Stage: totals(1, 2)}},
		{name: "inside a batch of 3: back to the stage end before it", spec: withInterval(base, 3), recorded: upTo(6),
			// Batches: 1–3, 4 (stage end), 5–7, 8 (stage end), 9–10 (the end).
			want: contract.StreamState{Cursor: 4, RuleBook: book(4), Totals: totals(1, 4), StageEnds: []int{4}, RuleSnapshots: [][]clinic.Rule{book(4)}}},
		{name: "at the end of a batch of 3", spec: withInterval(base, 3), recorded: upTo(7),
			want: contract.StreamState{Cursor: 7, RuleBook: book(7), Totals: totals(1, 7), Stage: totals(5, 7),
				StageEnds: []int{4}, RuleSnapshots: [][]clinic.Rule{book(4)}}},
		{name: "inside the first batch", spec: withInterval(base, 3), recorded: upTo(2), want: contract.StreamState{}},
		{name: "stage 2 evaluation unfinished: the stream ends stage 2 first", spec: evalSpec, recorded: upTo(8), evaluated: map[int]bool{1: true},
			want: contract.StreamState{Cursor: 8, RuleBook: book(8), Totals: totals(1, 8), Stage: totals(5, 8),
				StageEnds: []int{4}, RuleSnapshots: [][]clinic.Rule{book(4)}}},
		{name: "stage 2 evaluation finished", spec: evalSpec, recorded: upTo(8), evaluated: map[int]bool{1: true, 2: true},
			want: contract.StreamState{Cursor: 8, RuleBook: book(8), Totals: totals(1, 8),
				StageEnds: []int{4, 8}, RuleSnapshots: [][]clinic.Rule{book(4), book(8)}}},
		{name: "every episode recorded: the replays and the completion remain", spec: evalSpec, recorded: upTo(10), evaluated: map[int]bool{1: true, 2: true, 3: true},
			want: contract.StreamState{Cursor: 10, RuleBook: book(10), Totals: totals(1, 10), Stage: totals(9, 10),
				StageEnds: []int{4, 8, 10}, RuleSnapshots: [][]clinic.Rule{book(4), book(8), book(10)}}},
		{name: "a carry run numbers its stage ends in its lineage", spec: carry, recorded: upTo(9),
			want: contract.StreamState{Cursor: 9, RuleBook: book(9), Totals: totals(1, 9), Stage: totals(9, 9),
				StageEnds: []int{24, 28}, RuleSnapshots: [][]clinic.Rule{book(4), book(8)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids := caseIDs(10)
			spec := tc.spec
			spec.Limit = len(ids)
			var asked []int
			got, err := engine.ResumeState(spec, ids, resumeRecords(spec, ids, tc.recorded), func(j int) (bool, error) {
				asked = append(asked, j)
				return tc.evaluated[j], nil
			})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			if !spec.StageEval {
				require.Empty(t, asked, "no evaluation to look for")
			}
		})
	}
}

func TestResumeStateRefuses(t *testing.T) {
	t.Parallel() // see TestMain
	spec := contract.StreamSpec{RunID: "r", Corpus: "builtin:stream", StageSize: 4, StageEval: true}
	ids := caseIDs(10)
	recs := func(n int) []results.Record { return resumeRecords(spec, ids, upTo(n)) }
	for _, tc := range []struct {
		name      string
		recs      []results.Record
		evaluated func(int) (bool, error)
		want      string
	}{
		{"a record of another case order", func() []results.Record {
			r := recs(3)
			r[1].EpisodeID, r[1].CaseID = "r/p1/s01/e0002-other", "other"
			return r
		}(), nil, "record r/p1/s01/e0002-other (kind stream) is not episode 2 of this stream (r/p1/s01/e0002-c02): the stream's spec or corpus changed"},
		{"more records than cases", resumeRecords(spec, caseIDs(12), upTo(11)), nil, "episode 11 is recorded but the stream has 10 cases"},
		{"a record without a rule book", func() []results.Record {
			r := recs(3)
			r[2].RuleBook = nil
			return r
		}(), nil, "record r/p1/s01/e0003-c03 holds no rule book (recorded by an older clinevo)"},
		{"the store fails", recs(4), func(int) (bool, error) { return false, errors.New("connection reset") }, "resume r: stage 1 evaluation: connection reset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := tc.evaluated
			if ev == nil {
				ev = func(int) (bool, error) { return true, nil }
			}
			_, err := engine.ResumeState(spec, ids, tc.recs, ev)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestRestartFailedStream runs a stream whose model doctor's key is revoked
// while it runs: episode 7's first call gets a 401, which is not retried, and
// the stream fails. The key is fixed (the variable the role names is set to the
// new key and the worker restarted), RestartStream continues the stream from
// episode 7, and the finished run equals a clean run of the same spec against
// the same fake model record for record, trace for trace and card for card.
// No recorded episode runs again, nor stage 1's finished evaluation.
func TestRestartFailedStream(t *testing.T) {
	t.Parallel() // its key variable is its own: enginetest.Setenv
	const keyEnv = "CLINEVO_TEST_RESTART_KEY"
	srv := llmtest.New(t)
	srv.SetKey("key-1")
	enginetest.Setenv(t, keyEnv, "key-1")
	var revokeAt atomic.Int64 // the request after which the key is revoked; -1: never
	revokeAt.Store(-1)
	srv.Script = func(n int, _ llmtest.Request) *llmtest.Reply {
		if int64(n) == revokeAt.Load() {
			srv.SetKey("key-2")
		}
		return nil
	}
	spec := contract.StreamSpec{RunID: "rk", Corpus: "builtin:stream", Limit: 12, StageSize: 4, StageEval: true, EvalConcurrency: 2,
		ActivityTimeoutSeconds: 20, Settings: enginetest.ModelSettings(srv, keyEnv, "doctor")}
	ctx := context.Background()

	clean := enginetest.StartWith(t, quietLogger{})
	res := runStream(t, clean, spec)
	require.Equal(t, 12, res.Episodes)
	cleanCalls := len(srv.Requests())
	// The calls before episode 7: episodes 1–6 and stage 1's evaluation.
	cleanRecs, err := clean.Engine.Results.Records(ctx, "rk")
	require.NoError(t, err)
	evalRecs, err := clean.Engine.Results.Records(ctx, contract.StageEvalRunID("rk", 1))
	require.NoError(t, err)
	before := 0
	for _, r := range slices.Concat(cleanRecs[:6], evalRecs) {
		before += r.Usage["doctor"].Calls
	}
	require.Positive(t, before)

	env := enginetest.StartWith(t, quietLogger{})
	base := len(srv.Requests())
	revokeAt.Store(int64(base + before - 1)) // revoked after the last call before episode 7
	run, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	err = run.Get(ctx, nil)
	require.ErrorContains(t, err, "Incorrect API key provided.", "the stream fails on the 401")
	// The message names the role, the variable that holds its key and what
	// continues the stream after the fix; never the key.
	require.ErrorContains(t, err, "the endpoint refused the key of roles.doctor in $"+keyEnv+" (roles.doctor.api_key_env): set a valid key there on every worker and restart them")
	require.ErrorContains(t, err, "stream rk stopped (fix the cause that follows, then `clinevo stream restart rk` continues it after its last completed episode)")
	require.NotContains(t, err.Error(), "key-1")
	recs, err := env.Engine.Results.Records(ctx, "rk")
	require.NoError(t, err)
	require.Len(t, recs, 6, "episodes 1–6 were recorded")

	enginetest.Setenv(t, keyEnv, "key-2")
	env.RestartWorker(t)
	run, restarted, err := engine.RestartStream(ctx, env.Client, env.Engine.Results, "", "rk")
	require.NoError(t, err)
	require.Equal(t, 6, restarted.State.Cursor)
	require.Equal(t, []int{4}, restarted.State.StageEnds)
	var out contract.StreamResult
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, res, out, "the same result as the clean run")

	enginetest.RequireSameRun(t, clean.Engine, env.Engine, "rk", contract.StageEvalRunID("rk", 1), contract.StageEvalRunID("rk", 2), contract.StageEvalRunID("rk", 3))
	byKey := map[string]int{}
	for _, r := range srv.Requests()[base:] {
		byKey[r.Auth]++
	}
	require.Equal(t, before, byKey["Bearer key-1"]-1, "one call with the revoked key, refused")
	require.Equal(t, cleanCalls-before, byKey["Bearer key-2"], "after the restart, only the calls of episode 7 on: nothing recorded ran again")
	executions := func(id string) int {
		resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowId = %q", id)})
		require.NoError(t, err)
		return len(resp.Executions)
	}
	enginetest.Eventually(t, 10*time.Second, "the restarted stream in visibility", func() bool {
		return executions(cleanRecs[6].EpisodeID) == 2 // failed, then completed
	})
	for i, r := range recs {
		require.Equal(t, 1, executions(r.EpisodeID), "episode %d ran once", i+1)
	}
	require.Equal(t, 1, executions(contract.EvaluationWorkflowID(contract.StageEvalRunID("rk", 1))), "stage 1's evaluation ran once")
}

// TestResumeExperiment runs an experiment whose second condition, a model
// doctor's stream carrying the first's memory, fails when its key is revoked
// at its episode 4. After the key is fixed, ResumeExperiment reuses the
// finished first condition and continues the second from its episode 4: the
// experiment ends as a clean run of it does, and nothing recorded runs again.
func TestResumeExperiment(t *testing.T) {
	t.Parallel() // its key variable is its own: enginetest.Setenv
	const keyEnv = "CLINEVO_TEST_RESUME_KEY"
	srv := llmtest.New(t)
	srv.SetKey("key-1")
	enginetest.Setenv(t, keyEnv, "key-1")
	// The key is revoked at the first call of B's episode 4 in the env set
	// here: once B's episodes 1–3 are recorded, the next call belongs to
	// episode 4.
	var failing atomic.Pointer[enginetest.Env]
	var revoked atomic.Bool
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		env := failing.Load()
		if env == nil || revoked.Load() {
			return nil
		}
		recs, err := env.Engine.Results.Records(context.Background(), "rx-B")
		if err != nil || len(recs) < 3 || !revoked.CompareAndSwap(false, true) {
			return nil
		}
		srv.SetKey("key-2")
		return &llmtest.Reply{Status: 401, Content: "Incorrect API key provided."}
	}
	doctor := settings.Overrides{"roles": map[string]any{"doctor": map[string]any{"backend": "openai", "base_url": srv.BaseURL(),
		"model": "fake-doctor", "timeout": "5s", "api_key_env": keyEnv}}}
	spec := contract.ExperimentSpec{Name: "rx", Corpus: "builtin:stream", Limit: 4, StageSize: 2, ActivityTimeout: 20, Conditions: []contract.ConditionSpec{
		{Name: "A", Kind: contract.KindStream, Memory: contract.MemoryEmpty},
		{Name: "B", Kind: contract.KindStream, Memory: contract.MemoryCarry, CarryFrom: "A", Limit: 6, Settings: doctor}}}
	ctx := context.Background()
	runExperiment := func(env *enginetest.Env) (contract.ExperimentResult, error) {
		run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
		require.NoError(t, err)
		var res contract.ExperimentResult
		return res, run.Get(ctx, &res)
	}
	clean := enginetest.StartWith(t, quietLogger{})
	want, err := runExperiment(clean)
	require.NoError(t, err)

	env := enginetest.StartWith(t, quietLogger{})
	failing.Store(env)
	_, err = runExperiment(env)
	require.ErrorContains(t, err, "Incorrect API key provided.")
	require.True(t, revoked.Load())
	failing.Store(nil) // the restarted worker's engine replaces env.Engine

	enginetest.Setenv(t, keyEnv, "key-2")
	env.RestartWorker(t)
	run, err := engine.ResumeExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	var got contract.ExperimentResult
	require.NoError(t, run.Get(ctx, &got))
	require.Equal(t, want, got)
	enginetest.RequireSameRun(t, clean.Engine, env.Engine, spec.RunID("B"))
	enginetest.RequireSameRun(t, clean.Engine, env.Engine, spec.RunID("A"))

	_, err = engine.ResumeExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.ErrorIs(t, err, engine.ErrFinished)
	recs, err := env.Engine.Results.Records(ctx, spec.RunID("B"))
	require.NoError(t, err)
	ids := []string{contract.StreamWorkflowID(spec.RunID("A"))}
	for _, r := range recs[:3] {
		ids = append(ids, r.EpisodeID)
	}
	for _, id := range ids {
		resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf(`WorkflowId = %q AND ExecutionStatus != "ContinuedAsNew"`, id)})
		require.NoError(t, err)
		require.Len(t, resp.Executions, 1, "%s ran once", id)
	}
}

// A restarted EvoTest stream continues with the doctor temperature recorded
// with the last batch before its cursor, not one recorded after it.
func TestResumeStateKeepsTheTemperature(t *testing.T) {
	t.Parallel() // see TestMain
	spec := contract.StreamSpec{RunID: "r", Corpus: "builtin:stream", StageSize: 4, Limit: 10}
	ids := caseIDs(10)
	recs := resumeRecords(spec, ids, upTo(6))
	for i, v := range []float64{0.4, 0.4, 0.4, 0.2, 0.4, 0.6} { // what each batch recorded; 5 and 6 are inside the batch 5–7
		recs[i].Temperature = &v
	}
	got, err := engine.ResumeState(withInterval(spec, 3), ids, recs, nil)
	require.NoError(t, err)
	require.Equal(t, 4, got.Cursor, "batches 1–3, 4 (stage end), 5–7: back to the end of episode 4's")
	require.NotNil(t, got.Temperature)
	require.InDelta(t, 0.2, *got.Temperature, 1e-12, "the temperature recorded with episode 4's batch")
	none, err := engine.ResumeState(withInterval(spec, 3), ids, resumeRecords(spec, ids, upTo(6)), nil)
	require.NoError(t, err)
	require.Nil(t, none.Temperature, "no method chose one: the settings'")
}
