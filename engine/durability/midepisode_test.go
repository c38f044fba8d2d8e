package durability_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/workflows"
)

// killMidEpisode plays spec's one-episode stream on a dev server and a worker
// of the built binary. Once blocked is closed (the scripted model holds the
// doctor's second turn open) it checks that the first turn is stored, kills
// the worker with SIGKILL, releases the model (releaseOnce guards release),
// starts a second worker and waits for the stream. It returns the episode's
// events as the results store holds them.
func killMidEpisode(t *testing.T, spec contract.StreamSpec, blocked <-chan struct{}, release chan struct{}, releaseOnce *sync.Once) []clinic.Event {
	t.Helper()
	bin, dir, addr, server, worker := devAndWorker(t)
	c := dial(t, addr, server)
	ctx := context.Background()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, spec)
	require.NoError(t, err)

	select {
	case <-blocked:
	case <-time.After(2 * time.Minute):
		t.Fatal("the doctor never reached its second turn")
	}
	res, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	defer res.Close()
	_, turns, err := res.Counts(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, turns, "the first turn is stored before the doctor's second turn")
	worker.kill()
	releaseOnce.Do(func() { close(release) })
	start(t, bin, dir, "worker.log", "worker", "--address", addr)

	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var out contract.StreamResult
	require.NoError(t, run.Get(wctx, &out))
	require.Equal(t, 1, out.Episodes)

	recs, err := res.Records(ctx, spec.RunID)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	evs, err := res.Events(ctx, recs[0].EpisodeID, 100)
	require.NoError(t, err)
	return evs
}

// devAndWorker starts a dev server (without its worker) and one worker of the
// built binary in a fresh data directory; it returns the binary, the
// directory, the frontend's address, the server and the worker.
func devAndWorker(t *testing.T) (bin, dir, addr string, server, worker *proc) {
	t.Helper()
	bin = buildBinary(t)
	dir = t.TempDir()
	port := enginetest.FreePort(t)
	addr = "127.0.0.1:" + strconv.Itoa(port)
	server = start(t, bin, dir, "server.log", "dev", "--port", strconv.Itoa(port), "--worker=false")
	worker = start(t, bin, dir, "worker.log", "worker", "--address", addr)
	return bin, dir, addr, server, worker
}

// dial connects to the Temporal frontend at addr, served by server, once it
// answers; the client is closed when the test ends.
func dial(t *testing.T, addr string, server *proc) client.Client {
	t.Helper()
	c := connect(t, addr, server)
	t.Cleanup(c.Close)
	return c
}

// connect is dial without the cleanup. It fails at once if the server exits
// before it answers (Temporal ends the process when a port cannot be bound;
// the cleanup shows its log), and after two minutes if it never answers
// (clinevo's own choice: the server starts in about 1.5 s on an idle machine,
// the test suite runs dozens at once on two cores).
func connect(t *testing.T, addr string, server *proc) client.Client {
	t.Helper()
	var c client.Client
	enginetest.Eventually(t, 2*time.Minute, "the Temporal frontend", func() bool {
		if how, ok := server.exited(); ok {
			t.Fatalf("the Temporal server for %s exited (%s) before it answered", addr, how)
		}
		var err error
		c, err = client.Dial(client.Options{HostPort: addr, Logger: enginetest.Quiet{}})
		return err == nil
	})
	return c
}
