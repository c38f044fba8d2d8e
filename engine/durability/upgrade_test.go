package durability_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/workflows"
)

// UpgradeFromEnv names the earlier commit TestUpgradeMidStage builds and
// upgrades from; unset, the test skips (it builds a second clinevo: a named
// job, see README.md).
const UpgradeFromEnv = "CLINEVO_UPGRADE_FROM"

// TestUpgradeMidStage (issue 40) upgrades clinevo in the middle of a run, as
// a user does: `clinevo dev` of an earlier commit (CLINEVO_UPGRADE_FROM)
// starts a stream on a data directory and is stopped (SIGTERM) in the middle
// of stage 1; `clinevo dev` of this tree continues on the same directory.
// The finished stream, its stage evaluations and its replay are compared,
// record for record and card for card, with the run this tree plays from
// start to end (enginetest's in-process reference, which TestCrashRecovery
// shows a run on this tree's binary equals). They are identical where the
// commits between do not change behaviour; a change that does must be gated
// (workflow.GetVersion) and this test then fails on exactly that difference.
func TestUpgradeMidStage(t *testing.T) {
	from := os.Getenv(UpgradeFromEnv)
	if from == "" {
		t.Skipf("set %s to an earlier commit (e.g. eb54600) to run the upgrade test", UpgradeFromEnv)
	}
	t.Parallel() // see TestMain
	old, bin := buildAt(t, from), buildBinary(t)
	dir := t.TempDir()
	port := enginetest.FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	spec := contract.StreamSpec{RunID: "upgrade", Corpus: "builtin:stream", Limit: 16, StageSize: 8, ActivityTimeoutSeconds: 3,
		StageEval: true, Retention: "final", EvalConcurrency: 4}
	ref, _, refEvals := enginetest.ReferenceWithEvals(t, spec.WithDefaults())
	stage1 := 0
	for _, tr := range ref[:8] {
		stage1 += len(tr.Events)
	}

	before := start(t, old, dir, "old.log", "dev", "--port", strconv.Itoa(port))
	c := connect(t, addr, before)
	ctx := context.Background()
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	c.Close()
	res, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	defer res.Close()
	enginetest.Eventually(t, 3*time.Minute, fmt.Sprintf("%d stored turns, mid stage 1", stage1/2), func() bool {
		_, turns, err := res.Counts(ctx)
		return err == nil && turns >= stage1/2
	})
	before.stop(t)
	_, turns, err := res.Counts(ctx)
	require.NoError(t, err)
	require.Less(t, turns, stage1, "the earlier build stopped inside stage 1")
	t.Logf("the build of %s stopped after %d of stage 1's %d turns", from, turns, stage1)

	after := start(t, bin, dir, "new.log", "dev", "--port", strconv.Itoa(port))
	requireFinishedAsReference(t, addr, after, dir, spec, refEvals)
}

// stop sends SIGTERM, as a user's Ctrl-C or a service manager does, and
// waits for the process to exit.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not exit within 2 minutes of SIGTERM", p.name)
	}
}

// buildAt builds cmd/clinevo as it was at commit: the commit's tree is
// extracted with git archive (it leaves nothing in the repository, as a
// worktree would if the test were killed) and built with buildBinary's
// flags, so the dependencies come from the build cache.
func buildAt(t *testing.T, commit string) string {
	t.Helper()
	src := t.TempDir()
	archive := exec.Command("sh", "-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", commit, src)
	archive.Dir = "../.."
	out, err := archive.CombinedOutput()
	require.NoError(t, err, "extract commit %s: %s", commit, out)
	bin := filepath.Join(binDir, "clinevo-"+commit)
	build := exec.Command("go", "build", "-ldflags=-w", "-o", bin, "./cmd/clinevo")
	build.Dir = src
	out, err = build.CombinedOutput()
	require.NoError(t, err, "build clinevo at %s: %s", commit, out)
	return bin
}
