package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// TestStreamStatusShowsEndpoints: `stream status` prints one line per model
// endpoint with its limit of calls in flight, its 429s and the time waited,
// as runstatus.Endpoints sums them from the store's usage, in the table and
// in --json.
func TestStreamStatusShowsEndpoints(t *testing.T) {
	at := time.Date(2026, 12, 2, 17, 4, 5, 0, time.UTC)
	st := runstatus.Stream{WorkflowID: "r1/stream", Status: runstatus.StatusRunning, Endpoints: runstatus.Endpoints(map[string]results.Usage{
		"doctor":  {Endpoint: "http://gpu:8000/v1 qwen", Calls: 95, RateLimited: 5, WaitedMS: 61_000, Limit: 3, LimitAt: at.UnixMilli()},
		"patient": {Endpoint: "http://gpu:8000/v1 qwen", Calls: 100, WaitedMS: 4_000, Limit: 6, LimitAt: at.Add(-time.Minute).UnixMilli()},
		"judge":   {Endpoint: "https://api.example/v1 big", Calls: 2},
		"exam":    {Calls: 40},
	})}
	var out bytes.Buffer
	require.NoError(t, writeStreamStatus(&out, buildSet(t), "r1", st))
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

// TestStreamStatusShowsBudgets: a stream with caps shows what it had spent
// at its last check against each, its own and its experiment's.
func TestStreamStatusShowsBudgets(t *testing.T) {
	st := runstatus.Stream{WorkflowID: "x-E1/stream", Status: runstatus.StatusPaused + ": experiment budget", Progress: &contract.Progress{Cursor: 3, Total: 6,
		Spend: &contract.Spend{USD: 0.5, Tokens: 1200}, Budget: &settings.Budget{Tokens: 5000},
		ExperimentSpend: &contract.Spend{USD: 2.25, Tokens: 9000}, ExperimentBudget: &settings.Budget{USD: 2, Tokens: 20000}}}
	var out bytes.Buffer
	require.NoError(t, writeStreamStatus(&out, buildSet(t), "x-E1", st))
	require.Regexp(t, `(?m)^budget +spent tokens 1200 of 5000 \(at the last check\)$`, out.String())
	require.Regexp(t, `(?m)^experiment budget +spent USD 2\.2500 of 2\.0000, tokens 9000 of 20000 \(at the last check\)$`, out.String())
	st.Progress.Budget, st.Progress.ExperimentSpend = &settings.Budget{}, nil
	out.Reset()
	require.NoError(t, writeStreamStatus(&out, buildSet(t), "x-E1", st))
	require.NotContains(t, out.String(), "spent", "no cap, or no check yet: no line")
}

// TestLiveStatus: experiment raise-budget signals only the streams that take
// signals: running, paused (by anything), stopping or waiting ones.
func TestLiveStatus(t *testing.T) {
	for st, live := range map[string]bool{runstatus.StatusRunning: true, runstatus.StatusPaused + ": experiment budget": true, runstatus.StatusPaused: true,
		runstatus.StatusStopping: true, runstatus.StatusWaiting: true, runstatus.StatusPending: false, runstatus.StatusCompleted: false,
		runstatus.StatusFailed: false, runstatus.StatusTerminated: false, "pausedx": false} {
		require.Equal(t, live, liveStatus(st), st)
	}
}
