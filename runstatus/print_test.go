package runstatus

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// TestWriteStreamShowsEndpoints: `stream status` prints one line per model
// endpoint with its limit of calls in flight, its 429s and the time waited,
// as Endpoints sums them from the store's usage, in the table and in --json.
func TestWriteStreamShowsEndpoints(t *testing.T) {
	at := time.Date(2026, 12, 2, 17, 4, 5, 0, time.UTC)
	st := Stream{WorkflowID: "r1/stream", Status: StatusRunning, Endpoints: Endpoints(map[string]results.Usage{
		"doctor":  {Endpoint: "http://gpu:8000/v1 qwen", Calls: 95, RateLimited: 5, WaitedMS: 61_000, Limit: 3, LimitAt: at.UnixMilli()},
		"patient": {Endpoint: "http://gpu:8000/v1 qwen", Calls: 100, WaitedMS: 4_000, Limit: 6, LimitAt: at.Add(-time.Minute).UnixMilli()},
		"judge":   {Endpoint: "https://api.example/v1 big", Calls: 2},
		"exam":    {Calls: 40},
	})}
	var out bytes.Buffer
	require.NoError(t, WriteStream(&out, "r1", st, true))
	// 5 of 95+100+5 requests answered 429 = 2.5%; 61 s + 4 s waited; the
	// doctor's reading is the later.
	require.Regexp(t, `(?m)^endpoint +http://gpu:8000/v1 qwen \(doctor, patient\): limit 3 in flight \(at 17:04:05\), 195 calls, 5 answered 429 \(2\.5%\), waited 1m05s$`, out.String())
	require.Regexp(t, `(?m)^endpoint +https://api.example/v1 big \(judge\): no limit read yet, 2 calls, 0 answered 429 \(0\.0%\), waited 0s$`, out.String())
	require.NotRegexp(t, `\bexam\b`, out.String(), "a built-in role has no endpoint")

	b, err := json.Marshal(st)
	require.NoError(t, err)
	var js struct {
		Endpoints []map[string]any `json:"endpoints"`
	}
	require.NoError(t, json.Unmarshal(b, &js))
	require.Len(t, js.Endpoints, 2)
	require.Equal(t, map[string]any{"endpoint": "http://gpu:8000/v1 qwen", "roles": []any{"doctor", "patient"}, "limit": 3.0, "limit_at": "2026-12-02T17:04:05Z",
		"calls": 195.0, "rate_limited": 5.0, "rate_limited_share": 0.025, "waited_seconds": 65.0}, js.Endpoints[0])
}

// TestWriteStreamShowsBudgets: a stream with caps shows what it had spent
// at its last check against each, its own and its experiment's.
func TestWriteStreamShowsBudgets(t *testing.T) {
	st := Stream{WorkflowID: "x-E1/stream", Status: StatusPaused + ": experiment budget", Progress: &contract.Progress{Cursor: 3, Total: 6,
		Spend: &contract.Spend{USD: 0.5, Tokens: 1200}, Budget: &settings.Budget{Tokens: 5000},
		ExperimentSpend: &contract.Spend{USD: 2.25, Tokens: 9000}, ExperimentBudget: &settings.Budget{USD: 2, Tokens: 20000}}}
	var out bytes.Buffer
	require.NoError(t, WriteStream(&out, "x-E1", st, true))
	require.Regexp(t, `(?m)^budget +spent tokens 1200 of 5000 \(at the last check\)$`, out.String())
	require.Regexp(t, `(?m)^experiment budget +spent model USD 2\.2500 of 2\.0000, tokens 9000 of 20000 \(at the last check\)$`, out.String())
	st.Progress.Budget, st.Progress.ExperimentSpend = &settings.Budget{}, nil
	out.Reset()
	require.NoError(t, WriteStream(&out, "x-E1", st, true))
	require.NotContains(t, out.String(), "spent", "no cap, or no check yet: no line")
}

// TestWriteStreamMeans: the whole table of a running stream: the current
// stage's means beside the overall ones, U only when the benchmark defines
// it, the rule book numbered under one label.
func TestWriteStreamMeans(t *testing.T) {
	m := contract.Means{N: 4, S: 0.5, Strict: 0.25, U: -0.125, T: 6.5, E: 1.25, Cost: 42}
	st := Stream{WorkflowID: "r1/stream", Benchmark: "p", Status: StatusRunning, Rules: []string{"ask first", "test second"},
		Progress: &contract.Progress{Cursor: 4, Stage: 2, Stages: 3, Overall: m}}
	for _, c := range []struct {
		showU bool
		want  string
	}{
		{true, "" +
			"stream    r1 (workflow r1/stream, profile p)\n" +
			"status    running\n" +
			"episodes  4 of ?, stage 2 of 3\n" +
			"overall   n=4 S=0.500 strict=0.25 U=-0.125 turns=6.5 tests=1.2 cost=42 USD\n" +
			"stage 2   n=0\n" +
			"rules     1. ask first\n" +
			"          2. test second\n"},
		{false, "" +
			"stream    r1 (workflow r1/stream, profile p)\n" +
			"status    running\n" +
			"episodes  4 of ?, stage 2 of 3\n" +
			"overall   n=4 S=0.500 strict=0.25 turns=6.5 tests=1.2 cost=42 USD\n" +
			"stage 2   n=0\n" +
			"rules     1. ask first\n" +
			"          2. test second\n"},
	} {
		var out bytes.Buffer
		require.NoError(t, WriteStream(&out, "r1", st, c.showU))
		require.Equal(t, c.want, out.String())
	}
	st.Status, st.Benchmark = StatusCompleted, ""
	var out bytes.Buffer
	require.NoError(t, WriteStream(&out, "r1", st, true))
	require.Contains(t, out.String(), "profile -)")
	require.NotRegexp(t, `(?m)^stage 2`, out.String(), "a finished stream has no current stage")

	// A finished stream shows its means stage by stage (from the results
	// store), a stopped one where it stopped of how many.
	st.Status, st.Progress.Total, st.Progress.Cursor = StatusStopped, 12, 5
	st.StageMeans = []StageMeans{{Stage: 1, Means: contract.Means{N: 4, S: 0.25}}, {Stage: 2, Means: contract.Means{N: 1, S: 1}}}
	out.Reset()
	require.NoError(t, WriteStream(&out, "r1", st, false))
	require.Contains(t, out.String(), ""+
		"episodes  5 of 12 played before it stopped, in stage 2 of 3\n"+
		"overall   n=4 S=0.500 strict=0.25 turns=6.5 tests=1.2 cost=42 USD\n"+
		"stage 1   n=4 S=0.250 strict=0.00 turns=0.0 tests=0.0 cost=0 USD\n"+
		"stage 2   n=1 S=1.000 strict=0.00 turns=0.0 tests=0.0 cost=0 USD\n")
}

// TestLive: experiment raise-budget signals only the streams that take
// signals: running, paused (by anything), stopping or waiting ones.
func TestLive(t *testing.T) {
	for st, live := range map[string]bool{StatusRunning: true, StatusPaused + ": experiment budget": true, StatusPaused: true,
		StatusStopping: true, StatusWaiting: true, StatusPending: false, StatusCompleted: false,
		StatusFailed: false, StatusTerminated: false, "pausedx": false} {
		require.Equal(t, live, Live(st), st)
	}
}

// TestWriteExperiment: a pending condition shows dashes, a finished one its
// episodes, stages and means (U where its benchmark defines it), and a plan
// that could not be made says why under the table.
func TestWriteExperiment(t *testing.T) {
	ex := Experiment{Name: "q", WorkflowID: "q/experiment", Status: StatusRunning, PlanError: "corpus x: not found",
		Conditions: []Condition{
			{Name: "E1", Kind: contract.KindStream, Benchmark: "withu", Status: StatusCompleted, Done: 8, Total: 8, Stage: 2, Stages: 2,
				Means: contract.Means{N: 8, S: 0.0534, Strict: 0.125, U: -0.1384}, Run: "q-E1"},
			{Name: "E2", Kind: contract.KindStream, Benchmark: "nou", Status: StatusRunning, Done: 3, Stage: 1, Stages: 2,
				Means: contract.Means{N: 3, S: 0.5, U: 0.2}, Run: "q-E2"},
			{Name: "H0", Kind: contract.KindHeldOut, Status: StatusPending, Run: "q-H0"},
		}}
	var out bytes.Buffer
	require.NoError(t, WriteExperiment(&out, ex, func(profile string) bool { return profile == "withu" }))
	require.Equal(t, ""+
		"experiment q (workflow q/experiment): running\n"+
		"CONDITION  KIND     STATUS     EPISODES  STAGE  S      STRICT  U       RUN\n"+
		"E1         stream   completed  8/8       2/2    0.053  0.12    -0.138  q-E1\n"+
		"E2         stream   running    3         1/2    0.500  0.00    -       q-E2\n"+
		"H0         heldout  pending    -         -      -      -       -       q-H0\n"+
		"\nplan: not made (corpus x: not found)\n", out.String())
}

// TestWriteEpisodes: an episode not scored yet shows S as a dash.
func TestWriteEpisodes(t *testing.T) {
	s := 0.25
	var out bytes.Buffer
	require.NoError(t, WriteEpisodes(&out, []Episode{
		{WorkflowID: "r/p1/s01/e0001-a", Kind: "stream", Stage: 1, Index: 1, CaseID: "a", Condition: "angina", S: &s, Status: StatusCompleted},
		{WorkflowID: "r/p1/s01/e0002-b", Kind: "stream", Stage: 1, Index: 2, CaseID: "b", Condition: "asthma", Status: StatusRunning},
	}))
	require.Equal(t, ""+
		"EPISODE           KIND    STAGE  INDEX  CASE  CONDITION  S      STATUS\n"+
		"r/p1/s01/e0001-a  stream  1      1      a     angina     0.250  completed\n"+
		"r/p1/s01/e0002-b  stream  1      2      b     asthma     -      running\n", out.String())
}

// TestSize: the stream's runs and its episodes are counted apart; the first
// of the largest histories is the one named.
func TestSize(t *testing.T) {
	var s Size
	s.add("r/stream", "run-a", 120, true)
	s.add("r/stream", "run-b", 300, true)
	s.add("r/stream", "run-c", 300, true)
	s.add("r/p1/s01/e0001-a", "x", 40, false)
	s.add("r/p1/s01/e0002-b", "y", 55, false)
	require.Equal(t, Size{StreamRuns: 3, LargestStreamRun: "run-b", LargestStreamRunEvents: 300,
		Episodes: 2, LargestEpisode: "r/p1/s01/e0002-b", LargestEpisodeEvents: 55}, s)
	var out bytes.Buffer
	require.NoError(t, s.Write(&out))
	require.Equal(t, ""+
		"HISTORIES    COUNT  LARGEST           EVENTS\n"+
		"stream runs  3      run-b             300\n"+
		"episodes     2      r/p1/s01/e0002-b  55\n", out.String())
	b, err := json.Marshal(Size{})
	require.NoError(t, err)
	require.Equal(t, `{"episodes":0,"largest_episode":"","largest_episode_events":0,"largest_stream_run":"","largest_stream_run_events":0,"stream_runs":0}`, string(b))
}

// TestProgressStatus: a stream's progress says its status the way `stream
// status` and the steering commands print it: stopping before paused.
func TestProgressStatus(t *testing.T) {
	for _, tc := range []struct {
		p    contract.Progress
		want string
	}{
		{contract.Progress{}, StatusRunning},
		{contract.Progress{Paused: true}, StatusPaused},
		{contract.Progress{Paused: true, PausedBy: "budget"}, "paused: budget"},
		{contract.Progress{Paused: true, Stopping: true}, StatusStopping},
	} {
		require.Equal(t, tc.want, ProgressStatus(tc.p), "%+v", tc.p)
	}
}

// TestCapText: a cap with the spend last checked, the cap alone before a
// check, "no cap" for none.
func TestCapText(t *testing.T) {
	sp := &contract.Spend{USD: 1.25, Tokens: 300}
	for _, tc := range []struct {
		name string
		sp   *contract.Spend
		b    settings.Budget
		want string
	}{
		{"none", sp, settings.Budget{}, "no cap"},
		{"both, checked", sp, settings.Budget{USD: 2, Tokens: 1000}, "spent model USD 1.2500 of 2.0000, tokens 300 of 1000 (at the last check)"},
		{"tokens, checked", sp, settings.Budget{Tokens: 1000}, "spent tokens 300 of 1000 (at the last check)"},
		{"USD, not checked", nil, settings.Budget{USD: 40}, "model USD 40.0000 (no spend checked yet)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, CapText(tc.sp, tc.b))
		})
	}
}

// TestClosedStatus: the statuses of a closed workflow, never one a run may
// leave again (a progress bar ends at them).
func TestClosedStatus(t *testing.T) {
	for st, closed := range map[string]bool{"completed": true, "stopped": true, "failed": true, "terminated": true, "canceled": true,
		"timed_out": true, "running": false, "paused": false, "waiting": false, "pending": false, "stopping": false} {
		require.Equal(t, closed, Closed(st), st)
	}
}
