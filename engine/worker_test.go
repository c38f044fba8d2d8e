package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestWorkerWaitsForItsActivities (issue 40): the worker RunWorker runs (that
// of `clinevo worker` and `clinevo dev`), told to stop while the doctor's
// first model call is in flight (the fake answers it after 2 s), waits for
// the call, so the turn it pays for is stored before the worker returns,
// and its log says that it waits and that it stopped.
// With the SDK's default stop timeout (0) the call is cancelled and nothing
// is stored.
func TestWorkerWaitsForItsActivities(t *testing.T) {
	srv := llmtest.New(t)
	inFlight := make(chan struct{})
	var once sync.Once
	srv.Latency = func(n int) time.Duration {
		if n > 0 {
			return 0
		}
		once.Do(func() { close(inFlight) })
		return 2 * time.Second
	}
	env := enginetest.StartWith(t, enginetest.Quiet{})
	env.Worker.Stop() // the worker under test is RunWorker's
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "stopping", Corpus: "builtin:stream", Limit: 1, StageSize: 1, Settings: enginetest.ModelSettings(srv, "", "doctor")}
	_, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)

	wctx, stop := context.WithCancel(ctx)
	var log bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- env.Engine.RunWorker(wctx, env.Client, "", slog.New(slog.NewTextHandler(&log, nil))) }()
	select {
	case <-inFlight:
	case <-time.After(time.Minute):
		t.Fatal("the doctor's first call did not arrive within a minute")
	}
	stop()
	require.NoError(t, <-done)
	_, turns, err := env.Engine.Results.Counts(ctx)
	require.NoError(t, err)
	t.Logf("%d turns stored; the worker's log:\n%s", turns, log.String())
	// The turn loop's local activities run inside one workflow task, which
	// the stopping worker finishes: the turns after the first may be stored
	// too.
	require.GreaterOrEqual(t, turns, 1, "the turn whose call was in flight is stored")
	require.Equal(t, engine.StopTimeout, env.Engine.WorkerStopTimeout)
	require.Contains(t, log.String(), "worker stopping: waiting for its running activities to return")
	require.Contains(t, log.String(), "timeout=1m0s")
	require.Contains(t, log.String(), "worker stopped")
}
