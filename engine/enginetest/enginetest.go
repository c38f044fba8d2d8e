// Package enginetest starts an embedded Temporal server and a clinevo worker for
// end-to-end tests, on loopback ports and a temporary data directory.
package enginetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/internal/freeport"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/postgres"
)

// Env is a running server, client, engine and worker.
type Env struct {
	Server  *devserver.Server
	Client  client.Client
	Engine  *engine.Engine
	Worker  worker.Worker
	DataDir string
	setup   Setup
}

// FreePort returns a free loopback port (see freeport.Port).
func FreePort(t testing.TB) int {
	t.Helper()
	p, err := freeport.Port("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Start starts everything on a fresh data directory; runs choose their roles
// in their settings. Everything stops at cleanup.
func Start(t testing.TB) *Env { return StartWith(t, Quiet{}) }

// StartWith starts everything with the given SDK logger; each option may
// change the engine before the worker starts.
func StartWith(t testing.TB, logger log.Logger, options ...func(*engine.Engine)) *Env {
	return StartSetup(t, Setup{Logger: logger, Engine: options})
}

// Setup is everything a test may change before the worker starts.
type Setup struct {
	Logger   log.Logger
	Client   func(*client.Options) error // e.g. tracing interceptors
	Postgres *postgres.Config            // nil: results.db in the data directory
	Engine   []func(*engine.Engine)
	// RateWindow is the engine's window of rpm and tpm limits (0: a minute).
	RateWindow time.Duration
}

// StartSetup starts everything as the setup says.
func StartSetup(t testing.TB, s Setup) *Env {
	t.Helper()
	logger, options := s.Logger, s.Engine
	if logger == nil {
		logger = Quiet{}
	}
	dir := t.TempDir()
	// A drawn port is reserved against every clinevo process (freeport), not
	// against the rest of the machine, and once (engine/durability, on
	// 2026-12-03) a port was taken between its draw and the server's check of
	// it, by a process we did not find. Such a port is drawn again, twice at
	// most (clinevo's own choice).
	var srv *devserver.Server
	var err error
	for attempt := 1; ; attempt++ {
		srv, err = devserver.Start(devserver.Options{DataDir: dir, Port: FreePort(t)})
		if err == nil || !errors.Is(err, devserver.ErrPortTaken) || attempt == 3 {
			break
		}
		t.Logf("%v: drawing another port", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	copts := client.Options{HostPort: srv.Address(), Logger: logger}
	if s.Client != nil {
		if err := s.Client(&copts); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.Dial(copts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: dir, Postgres: s.Postgres, RateWindow: s.RateWindow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, o := range options {
		o(eng)
	}
	w := eng.NewWorker(c, "")
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return &Env{Server: srv, Client: c, Engine: eng, Worker: w, DataDir: dir, setup: s}
}

// RestartWorker stops the worker and closes its engine, then opens a new engine
// on the same stores and starts a new worker on the same server: what a
// restart of a worker process does (the new one reads this process's
// environment afresh, model keys included).
func (e *Env) RestartWorker(t testing.TB) {
	t.Helper()
	e.Worker.Stop()
	if err := e.Engine.Close(); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: e.DataDir, Postgres: e.setup.Postgres, RateWindow: e.setup.RateWindow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, o := range e.setup.Engine {
		o(eng)
	}
	w := eng.NewWorker(e.Client, "")
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	e.Engine, e.Worker = eng, w
}

// Eventually polls cond every 50 ms until it holds or the deadline passes.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Quiet drops the SDK's informational logs in tests.
type Quiet struct{}

func (Quiet) Debug(string, ...any) {}
func (Quiet) Info(string, ...any)  {}
func (Quiet) Warn(string, ...any)  {}
func (Quiet) Error(string, ...any) {}

// Untimed is a record without what differs from run to run of the same
// stream: its activity time and its roles' endpoint-limiter readings (the
// time calls waited, the limit and when it was read).
func Untimed(r results.Record) results.Record {
	r.TimeMS = nil
	if r.Usage != nil {
		u := make(map[string]results.Usage, len(r.Usage))
		for role, ru := range r.Usage {
			ru.WaitedMS, ru.Limit, ru.LimitAt = 0, 0, 0
			u[role] = ru
		}
		r.Usage = u
	}
	return r
}

// RequireSameRun compares the records (but what differs from run to run:
// Untimed), traces and cards of runs in two engines: the
// first run's cards, evicted ones too.
func RequireSameRun(t testing.TB, want, got *engine.Engine, runs ...string) {
	t.Helper()
	ctx := context.Background()
	for _, run := range runs {
		w, err := want.Results.Records(ctx, run)
		require.NoError(t, err)
		g, err := got.Results.Records(ctx, run)
		require.NoError(t, err)
		require.Len(t, g, len(w), "run %s", run)
		require.NotEmpty(t, w, "run %s", run)
		for i := range w {
			require.Equal(t, Untimed(w[i]), Untimed(g[i]), "record %d of %s", i+1, run)
			_, wt, err := want.Results.RecordTrace(ctx, w[i].EpisodeID)
			require.NoError(t, err)
			_, gt, err := got.Results.RecordTrace(ctx, g[i].EpisodeID)
			require.NoError(t, err)
			require.Equal(t, wt, gt, "trace of %s", w[i].EpisodeID)
		}
	}
	f := memory.Filter{Runs: runs[:1], IncludeEvicted: true}
	wc, err := want.Memory.List(ctx, f)
	require.NoError(t, err)
	gc, err := got.Memory.List(ctx, f)
	require.NoError(t, err)
	require.NotEmpty(t, wc)
	require.Equal(t, wc, gc, "cards")
}
