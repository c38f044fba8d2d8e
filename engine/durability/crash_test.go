package durability_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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

// proc is a clinevo subprocess.
type proc struct {
	cmd  *exec.Cmd
	name string
	done chan struct{} // closed once the process has exited and is reaped
}

func start(t *testing.T, bin, dir, logName string, args ...string) *proc {
	t.Helper()
	return startEnv(t, bin, dir, logName, nil, args...)
}

// startEnv starts clinevo on a data directory with env added to this
// process's environment, its output appended to dir/logName (shown when the
// test fails).
func startEnv(t *testing.T, bin, dir, logName string, env []string, args ...string) *proc {
	t.Helper()
	path := filepath.Join(dir, logName)
	log, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	cmd := exec.Command(bin, append([]string{"--data-dir", dir}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	require.NoError(t, cmd.Start())
	p := &proc{cmd: cmd, name: logName, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		log.Close()
		if !t.Failed() {
			return
		}
		// A server's own log (the embedded Temporal server's) says why it
		// did not come up or stopped.
		logs := []string{path}
		if len(args) > 0 && args[0] == "dev" {
			logs = append(logs, filepath.Join(dir, "temporal.log"))
		}
		for _, f := range logs {
			if b, err := os.ReadFile(f); err == nil {
				t.Logf("%s (last 4 KB):\n%s", f, b[max(0, len(b)-4096):])
			}
		}
	})
	return p
}

// kill sends SIGKILL and reaps the process (one that has exited already is
// only reaped).
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// exited reports whether the process has ended, with how.
func (p *proc) exited() (string, bool) {
	select {
	case <-p.done:
		return p.cmd.ProcessState.String(), true
	default:
		return "", false
	}
}

// buildBinary builds cmd/clinevo once per test binary, into the directory
// TestMain removes at the end, for every test that runs it as subprocesses.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		bin := filepath.Join(binDir, "clinevo")
		cmd := exec.Command("go", "build", "-ldflags=-w", "-o", bin, "./cmd/clinevo") // no DWARF: a faster link, and nothing debugs it
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build clinevo: %w: %s", err, out)
			return
		}
		binPath = bin
	})
	require.NoError(t, binErr)
	return binPath
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string // made and removed by TestMain
)

// TestCrashRecovery kills the worker with SIGKILL in the middle of stream
// episodes, of a stage evaluation and of the retention replay, and the whole
// process (server and worker) once in the middle of another stage evaluation,
// and checks that the finished stream and every evaluation are identical to an
// uninterrupted in-process run.
func TestCrashRecovery(t *testing.T) {
	t.Parallel() // see TestMain
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	port := enginetest.FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	server := start(t, bin, dir, "server.log", "dev", "--port", strconv.Itoa(port), "--worker=false")
	worker := start(t, bin, dir, "worker.log", "worker", "--address", addr)

	c := connect(t, addr, server)
	spec := contract.StreamSpec{RunID: "crash", Corpus: "builtin:stream", Limit: 16, StageSize: 8, ActivityTimeoutSeconds: 3,
		StageEval: true, Retention: "final", EvalConcurrency: 4}
	ctx := context.Background()
	// Phase lengths in stored turns, from the reference run: stream stage 1,
	// its evaluation, stream stage 2, its evaluation, the replay of stage 1.
	refTraces, _, refEvals := enginetest.ReferenceWithEvals(t, spec.WithDefaults())
	turns := func(ts []clinic.Trace) int {
		n := 0
		for _, tr := range ts {
			n += len(tr.Events)
		}
		return n
	}
	phases := []int{turns(refTraces[:8]), turns(refEvals[contract.StageEvalRunID("crash", 1)]), turns(refTraces[8:]),
		turns(refEvals[contract.StageEvalRunID("crash", 2)]), turns(refEvals[contract.ReplayRunID("crash", 2, 1)])}
	mid := func(p int) int { // the middle of phase p, in cumulative turns
		n := 0
		for i := 0; i < p; i++ {
			n += phases[i]
		}
		return n + phases[p]/2
	}
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue}, workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	c.Close()

	res, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	defer res.Close()
	waitTurns := func(n int) {
		enginetest.Eventually(t, 3*time.Minute, fmt.Sprintf("%d stored turns", n), func() bool {
			_, turns, err := res.Counts(ctx)
			return err == nil && turns >= n
		})
	}
	// Worker kills: mid stream stage 1, mid its evaluation, mid stream stage 2.
	for _, at := range []int{mid(0), mid(1), mid(2)} {
		waitTurns(at)
		worker.kill()
		worker = start(t, bin, dir, "worker.log", "worker", "--address", addr)
	}
	// The whole process once, mid the stage-2 evaluation; then one process for both,
	// killed once more mid the retention replay.
	waitTurns(mid(3))
	worker.kill()
	server.kill()
	all := start(t, bin, dir, "dev.log", "dev", "--port", strconv.Itoa(port))
	waitTurns(mid(4))
	all.kill()
	last := start(t, bin, dir, "dev.log", "dev", "--port", strconv.Itoa(port))

	requireFinishedAsReference(t, addr, last, dir, spec, refEvals)

	// The workers' own output holds their workflows' and activities' Info
	// lines (log.level info, the default): an operator follows the run there.
	logs, err := os.ReadFile(filepath.Join(dir, "worker.log"))
	require.NoError(t, err)
	for _, line := range []string{`level=INFO msg="stream started"`, `level=INFO msg="stage finished"`, `level=INFO msg="evaluation started"`,
		`level=INFO msg="run completed"`} {
		require.Contains(t, string(logs), line, "the worker's output")
	}
}

// requireFinishedAsReference waits for the stream of spec to finish on the
// server at addr (run by p), then compares the data directory's stream,
// memory and evaluations with the in-process reference.
func requireFinishedAsReference(t *testing.T, addr string, p *proc, dir string, spec contract.StreamSpec, refEvals map[string][]clinic.Trace) {
	t.Helper()
	var out contract.StreamResult
	awaitResult(t, addr, p, contract.StreamWorkflowID(spec.RunID), &out)
	require.Equal(t, spec.Limit, out.Episodes)
	eng := openEngine(t, dir)
	enginetest.RequireSameAsReference(t, eng.Results, eng.Memory, spec)
	enginetest.RequireEvaluationsAsReference(t, eng.Results, refEvals)
}
