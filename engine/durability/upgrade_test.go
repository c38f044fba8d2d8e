package durability_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/internal/sqliteuri"
)

// UpgradeFromEnv names the earlier commit the upgrade tests build and
// upgrade from; unset, they skip (they build a second clinevo: a named job,
// see README.md).
const UpgradeFromEnv = "CLINEVO_UPGRADE_FROM"

// TestUpgradeMidStage (issue 40) upgrades clinevo in the middle of a run, as
// a user does: the build of an earlier commit (CLINEVO_UPGRADE_FROM) starts
// a stream with its own `clinevo stream start` (so the stream carries that
// build's settings) on the data directory of its `clinevo dev`, which is
// stopped (SIGTERM) in the middle of stage 1; `clinevo dev` of this tree
// continues on the same directory. The finished stream, its stage
// evaluations and its replay are compared, record for record and card for
// card, with the run this tree plays from start to end (enginetest's
// in-process reference, which TestCrashRecovery shows a run on this tree's
// binary equals). They are identical where the commits between do not
// change behaviour; a change that does must be gated (workflow.GetVersion)
// and this test then fails on exactly that difference. A settings key the
// earlier build wrote and this tree no longer reads fails it too: every run
// of a stream checks its settings again at each stage.
func TestUpgradeMidStage(t *testing.T) {
	from, old, bin := upgradeBuilds(t)
	spec := contract.StreamSpec{RunID: "upgrade", Corpus: "builtin:stream", Limit: 16, StageSize: 8, ActivityTimeoutSeconds: 3,
		StageEval: true, Retention: "final", EvalConcurrency: 4}
	ref, _, refEvals := enginetest.ReferenceWithEvals(t, spec.WithDefaults())
	stage1 := 0
	for _, tr := range ref[:8] {
		stage1 += len(tr.Events)
	}

	dir, port := t.TempDir(), enginetest.FreePort(t)
	before, addr := startDev(t, old, dir, "old.log", port)
	ready(t, addr, before, dir)
	cli(t, old, dir, "stream", "start", "--run", spec.RunID, "--corpus", spec.Corpus, "--limit", "16", "--stage-size", "8",
		"--stage-eval", "--retention", "final", "--activity-timeout", "3")
	enginetest.Eventually(t, 3*time.Minute, fmt.Sprintf("%d stored turns, mid stage 1", stage1/2), func() bool {
		turns, _, err := stored(dir, spec.RunID)
		return err == nil && turns >= stage1/2
	})
	before.stop(t)
	stopped, _, err := stored(dir, spec.RunID)
	require.NoError(t, err)
	require.Less(t, stopped, stage1, "the earlier build stopped inside stage 1")
	t.Logf("the build of %s stopped after %d of stage 1's %d turns", from, stopped, stage1)

	after, _ := startDev(t, bin, dir, "new.log", port)
	requireFinishedAsReference(t, addr, after, dir, spec, refEvals)
}

// upgradeExperiment is the experiment TestUpgradeMidExperiment upgrades in
// the middle of: a static condition (E0), a learning one with stage
// evaluations (E1), and a held-out evaluation with E1's final memory frozen
// (H1), which waits for E1.
const upgradeExperiment = `name: upgrade
corpus: builtin:stream
limit: 16
stage_size: 8
heldout: builtin:heldout
heldout_limit: 8
eval_concurrency: 4
activity_timeout_seconds: 3
settings:
  episode: {mdt: off}
conditions:
  - {name: E0, kind: stream, memory: disabled}
  - {name: E1, kind: stream, memory: empty, stage_eval: true}
  - {name: H1, kind: heldout, from: E1}
`

// TestUpgradeMidExperiment (issue 40) is TestUpgradeMidStage for an
// experiment: the earlier build starts it (`clinevo experiment run`) and is
// stopped (SIGTERM) in the middle of E1's first stage, this tree's build
// finishes it on the same data directory. Beside it, this tree's build plays
// the same experiment from start to end on a data directory of its own; the
// two experiments' results, every condition's records and traces (stage
// evaluations included) and E1's cards must be equal.
func TestUpgradeMidExperiment(t *testing.T) {
	from, old, bin := upgradeBuilds(t)
	spec := enginetest.Spec(t, "upgrade.yaml", []byte(upgradeExperiment))
	id, e1 := contract.ExperimentWorkflowID(spec.Name), spec.RunID("E1")
	file := filepath.Join(t.TempDir(), "upgrade.yaml")
	require.NoError(t, os.WriteFile(file, []byte(upgradeExperiment), 0o644))
	refDir := t.TempDir()
	ref, refAddr := startDev(t, bin, refDir, "ref.log", enginetest.FreePort(t))
	ready(t, refAddr, ref, refDir)
	cli(t, bin, refDir, "experiment", "run", file)

	dir, port := t.TempDir(), enginetest.FreePort(t)
	before, addr := startDev(t, old, dir, "old.log", port)
	ready(t, addr, before, dir)
	cli(t, old, dir, "experiment", "run", file)
	enginetest.Eventually(t, 3*time.Minute, "4 of E1's episodes, mid stage 1", func() bool {
		_, episodes, err := stored(dir, e1)
		return err == nil && episodes >= 4
	})
	before.stop(t)
	_, stopped, err := stored(dir, e1)
	require.NoError(t, err)
	require.Less(t, stopped, 8, "the earlier build stopped inside E1's stage 1")
	_, e0, err := stored(dir, spec.RunID("E0"))
	require.NoError(t, err)
	t.Logf("the build of %s stopped after %d of E1's 16 episodes (and %d of E0's)", from, stopped, e0)

	after, _ := startDev(t, bin, dir, "new.log", port)
	var want, got contract.ExperimentResult
	awaitResult(t, refAddr, ref, id, &want)
	awaitResult(t, addr, after, id, &got)
	require.Equal(t, want, got, "the experiment's result")
	ref.stop(t)
	after.stop(t)
	wantEng, gotEng := openEngine(t, refDir), openEngine(t, dir)
	// E1 first: RequireSameRun compares the first run's cards.
	enginetest.RequireSameRun(t, wantEng, gotEng, e1, contract.StageEvalRunID(e1, 1), contract.StageEvalRunID(e1, 2),
		spec.RunID("E0"), spec.RunID("H1"))
}

// upgradeBuilds skips the test unless UpgradeFromEnv names a commit; it
// returns the commit, clinevo built at it and clinevo built from this tree.
func upgradeBuilds(t *testing.T) (from, old, bin string) {
	t.Helper()
	from = os.Getenv(UpgradeFromEnv)
	if from == "" {
		t.Skipf("set %s to an earlier commit (e.g. 4a9ba73, the previous release) to run the upgrade tests", UpgradeFromEnv)
	}
	t.Parallel() // see TestMain
	return from, buildAt(t, from), buildBinary(t)
}

// startDev starts `clinevo dev` of bin on dir, its Temporal frontend on
// port, and returns it with the frontend's address.
func startDev(t *testing.T, bin, dir, logName string, port int) (*proc, string) {
	t.Helper()
	p := start(t, bin, dir, logName, "dev", "--port", strconv.Itoa(port))
	return p, "127.0.0.1:" + strconv.Itoa(port)
}

// ready waits for the server p runs on dir at addr to answer and for its
// worker to have made the results store: a command of the same build (which
// checks a new run against the runs the store holds) then finds both.
func ready(t *testing.T, addr string, p *proc, dir string) {
	t.Helper()
	connect(t, addr, p).Close()
	enginetest.Eventually(t, 2*time.Minute, "the results store of "+dir, func() bool {
		_, _, err := stored(dir, "")
		return err == nil
	})
}

// cli runs a command of bin on the data directory dir to its end, as a user
// starts a run: each build with its own configuration and defaults.
func cli(t *testing.T, bin, dir string, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"--data-dir", dir}, args...)...).CombinedOutput()
	require.NoError(t, err, "%s %v: %s", bin, args, out)
}

// awaitResult waits, five minutes at most, for the workflow of ID id on the
// server p serves at addr to finish, and decodes its result into out.
func awaitResult(t *testing.T, addr string, p *proc, id string, out any) {
	t.Helper()
	c := connect(t, addr, p)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	require.NoError(t, c.GetWorkflow(ctx, id, "").Get(ctx, out), "result of %s", id)
}

// stored counts the turns of every run and the episodes of run in the
// results file of a data directory, which the earlier build writes with its
// own schema version: it reads the file read-only with plain SQL on the
// two tables every version has, as this tree's store would migrate the file
// (and the earlier build would then refuse it) or refuse to read it.
func stored(dir, run string) (turns, episodes int, err error) {
	db, err := sql.Open("sqlite", sqliteuri.File(filepath.Join(dir, "results.db"), "mode=ro&_pragma=busy_timeout(10000)"))
	if err != nil {
		return 0, 0, fmt.Errorf("open the results of %s: %w", dir, err)
	}
	defer db.Close()
	err = db.QueryRow(`SELECT (SELECT COUNT(*) FROM turns WHERE event IS NOT NULL), (SELECT COUNT(*) FROM episodes WHERE run=$1)`, run).
		Scan(&turns, &episodes)
	if err != nil {
		return 0, 0, fmt.Errorf("count the stored turns and episodes of %s in %s: %w", run, dir, err)
	}
	return turns, episodes, nil
}

// openEngine opens the stores of a data directory, until the test ends.
func openEngine(t *testing.T, dir string) *engine.Engine {
	t.Helper()
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: dir})
	require.NoError(t, err, "open %s", dir)
	t.Cleanup(func() { eng.Close() })
	return eng
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

// buildAt builds cmd/clinevo as it was at commit, once per test binary
// (the upgrade tests run in parallel and share the build): the commit's
// tree is extracted with git archive (it leaves nothing in the repository,
// as a worktree would if the test were killed) and built with buildBinary's
// flags, so the dependencies come from the build cache.
func buildAt(t *testing.T, commit string) string {
	t.Helper()
	builtAt.Lock()
	defer builtAt.Unlock()
	if bin, ok := builtAt.bins[commit]; ok {
		return bin
	}
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
	builtAt.bins[commit] = bin
	return bin
}

// builtAt holds buildAt's binaries by commit.
var builtAt = struct {
	sync.Mutex
	bins map[string]string
}{bins: map[string]string{}}
