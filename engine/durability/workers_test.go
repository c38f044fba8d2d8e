package durability_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/memory/qdrant/qdranttest"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/results/postgres/pgtest"
	"github.com/clinevo/clinevo/settings"
)

// TestManyWorkersOneRun runs one stream on three `clinevo worker` processes,
// each with a data directory of its own as on three machines, sharing one
// Temporal server (`clinevo dev --worker=false`), the results on PostgreSQL (a
// fresh schema) and the memory on a Qdrant served on a loopback port (the
// in-process test server, which the workers reach as any Qdrant). A 60-episode
// stream in stages of 20, with stage evaluations and the final retention
// replay; the worker running the current episode is SIGKILLed in the middle of
// stage 1 and restarted, and the same worker is killed again, once it runs an
// episode, in the middle of stage 2, and restarted. The finished run equals
// the in-process reference record for record and card for card, and so does
// every evaluation.
func TestManyWorkersOneRun(t *testing.T) {
	t.Parallel() // see TestMain
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	dsn := pgtest.Fresh(t) // skips without a database (fails under CI)
	qs := qdranttest.Start(t)
	bin := buildBinary(t)
	began := time.Now()
	dir := t.TempDir()
	port := enginetest.FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	server := start(t, bin, dir, "server.log", "dev", "--port", strconv.Itoa(port), "--worker=false")
	env := []string{"CLINEVO_RESULTS_BACKEND=postgres", "CLINEVO_RESULTS_POSTGRES_DSN=" + dsn,
		"CLINEVO_RESULTS_POSTGRES_PASSWORD_ENV=" + pgtest.EnvPassword, "CLINEVO_MEMORY_BACKEND=qdrant",
		"CLINEVO_MEMORY_QDRANT_HOST=" + qs.Host, "CLINEVO_MEMORY_QDRANT_PORT=" + strconv.Itoa(qs.Port)}
	workers := make([]*proc, 3)
	startWorker := func(i int) {
		wdir := filepath.Join(dir, fmt.Sprintf("worker%d", i))
		require.NoError(t, os.MkdirAll(wdir, 0o755))
		workers[i] = startEnv(t, bin, wdir, "worker.log", env, "worker", "--address", addr)
	}
	for i := range workers {
		startWorker(i)
	}

	c := dial(t, addr, server)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "many", Corpus: "builtin:stream", Limit: 60, StageSize: 20, StageEval: true, Retention: "final",
		EvalConcurrency: 4, ActivityTimeoutSeconds: 3, Settings: enginetest.Tweak(func(s *settings.Settings) { s.Memory.Backend = "qdrant" })}
	refTraces, _, refEvals := enginetest.ReferenceWithEvals(t, spec.WithDefaults())
	turns := func(ts []clinic.Trace) int {
		n := 0
		for _, tr := range ts {
			n += len(tr.Events)
		}
		return n
	}
	// The middle of stream stage 1, and of stream stage 2 (after stage 1's
	// evaluation), in stored turns.
	midStage1 := turns(refTraces[:10])
	midStage2 := turns(refTraces[:30]) + turns(refEvals[contract.StageEvalRunID("many", 1)])
	res, err := postgres.Open(ctx, postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)})
	require.NoError(t, err)
	defer res.Close()
	_, err = engine.StartStream(ctx, c, res, "", spec)
	require.NoError(t, err)
	waitTurns := func(n int) {
		enginetest.Eventually(t, 5*time.Minute, fmt.Sprintf("%d stored turns", n), func() bool {
			_, turns, err := res.Counts(ctx)
			return err == nil && turns >= n
		})
	}
	// busy is the worker running the workflow task of the stream's current
	// episode (the turn loop runs there, as local activities), or -1.
	busy := func() int {
		desc, err := c.DescribeWorkflowExecution(ctx, contract.StreamWorkflowID("many"), "")
		if err != nil {
			return -1
		}
		for _, ch := range desc.PendingChildren {
			if ch.WorkflowTypeName != "EpisodeWorkflow" {
				continue // a stage evaluation
			}
			pid := lastWorkflowTaskPid(ctx, c, ch.WorkflowId)
			for i, w := range workers {
				if w.cmd.Process.Pid == pid {
					return i
				}
			}
		}
		return -1
	}
	kill := func(i int) {
		_, stored, err := res.Counts(ctx)
		require.NoError(t, err)
		t.Logf("SIGKILL worker %d (pid %d) at %d stored turns", i, workers[i].cmd.Process.Pid, stored)
		workers[i].kill()
		startWorker(i)
	}
	waitTurns(midStage1)
	victim := -1
	enginetest.Eventually(t, 3*time.Minute, "a worker running an episode", func() bool { victim = busy(); return victim >= 0 })
	kill(victim)
	waitTurns(midStage2)
	enginetest.Eventually(t, 3*time.Minute, fmt.Sprintf("worker %d running an episode", victim), func() bool { return busy() == victim })
	kill(victim)

	var out contract.StreamResult
	wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	require.NoError(t, c.GetWorkflow(wctx, contract.StreamWorkflowID("many"), "").Get(wctx, &out))
	require.Equal(t, 60, out.Episodes)
	t.Logf("60 episodes, 3 stage evaluations and 2 replays on three workers, one killed twice: %v (after building the binary)", time.Since(began))

	mem, err := qdrant.Open(ctx, qdrant.Config{Host: qs.Host, Port: qs.Port}, memory.HashEmbedder{}, false)
	require.NoError(t, err)
	defer mem.Close()
	enginetest.RequireSameAsReference(t, res, mem, spec)
	enginetest.RequireEvaluationsAsReference(t, res, refEvals)

	// The work was shared: the stream's episodes finished on at least three
	// of the five worker processes (three, and two restarts).
	pids := map[int]bool{}
	recs, err := res.Records(ctx, "many")
	require.NoError(t, err)
	for _, r := range recs {
		pids[lastWorkflowTaskPid(ctx, c, r.EpisodeID)] = true
	}
	delete(pids, 0)
	require.GreaterOrEqual(t, len(pids), 3, "episodes ran on at least three worker processes")
}

// lastWorkflowTaskPid is the process ID in the identity of the worker that
// started a workflow's last workflow task (identities are pid@host@...), or 0.
func lastWorkflowTaskPid(ctx context.Context, c client.Client, workflowID string) int {
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	identity := ""
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return 0
		}
		if a := ev.GetWorkflowTaskStartedEventAttributes(); a != nil {
			identity = a.GetIdentity()
		}
	}
	head, _, _ := strings.Cut(identity, "@")
	pid, err := strconv.Atoi(head)
	if err != nil {
		return 0
	}
	return pid
}
