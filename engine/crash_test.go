package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/workflows"
)

// proc is a clinevo subprocess.
type proc struct {
	cmd  *exec.Cmd
	name string
}

func start(t *testing.T, bin, dir, logName string, args ...string) *proc {
	t.Helper()
	log, err := os.OpenFile(filepath.Join(dir, logName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	cmd := exec.Command(bin, append([]string{"--data-dir", dir}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	p := &proc{cmd: cmd, name: logName}
	t.Cleanup(func() { p.kill() })
	return p
}

// kill sends SIGKILL and reaps the process.
func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "clinevo")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/clinevo")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "build clinevo: %s", out)
	return bin
}

// TestCrashRecovery kills the worker with SIGKILL in the middle of episodes
// three times, then the whole process (server and worker) once, and checks the
// finished stream is identical to an uninterrupted in-process run.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	port := enginetest.FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	server := start(t, bin, dir, "server.log", "dev", "--port", strconv.Itoa(port), "--worker=false")
	worker := start(t, bin, dir, "worker.log", "worker", "--address", addr)

	dial := func() client.Client {
		var c client.Client
		enginetest.Eventually(t, time.Minute, "the Temporal frontend", func() bool {
			var err error
			c, err = client.Dial(client.Options{HostPort: addr, Logger: quietLogger{}})
			return err == nil
		})
		return c
	}
	c := dial()
	spec := activities.StreamSpec{RunID: "crash", Corpus: "builtin:stream", Limit: 24, StageSize: 8, Rules: true, ActivityTimeoutSeconds: 3}
	ctx := context.Background()
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: activities.StreamWorkflowID(spec.RunID), TaskQueue: workflows.TaskQueue}, workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	c.Close()

	res, err := results.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	defer res.Close()
	waitTurns := func(n int) {
		enginetest.Eventually(t, 3*time.Minute, fmt.Sprintf("%d stored turns", n), func() bool {
			_, turns, err := res.Counts(ctx)
			return err == nil && turns >= n
		})
	}
	// Three worker kills in the middle of episodes.
	for _, at := range []int{15, 50, 95} {
		waitTurns(at)
		worker.kill()
		worker = start(t, bin, dir, "worker.log", "worker", "--address", addr)
	}
	// The whole process once: server and worker together, then one process for both.
	waitTurns(130)
	worker.kill()
	server.kill()
	all := start(t, bin, dir, "dev.log", "dev", "--port", strconv.Itoa(port))
	waitTurns(150)
	all.kill()
	start(t, bin, dir, "dev.log", "dev", "--port", strconv.Itoa(port))

	c = dial()
	defer c.Close()
	var out workflows.StreamResult
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	require.NoError(t, c.GetWorkflow(wctx, activities.StreamWorkflowID(spec.RunID), "").Get(wctx, &out))
	require.Equal(t, 24, out.Episodes)

	eng, err := engine.Open(ctx, engine.Options{DataDir: dir})
	require.NoError(t, err)
	defer eng.Close()
	requireSameAsReference(t, eng.Results, eng.Memory, spec)
}

type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
