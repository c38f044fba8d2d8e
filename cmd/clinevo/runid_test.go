package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
)

// snapshot is everything a start could change, as JSON: every record with
// its trace, every card, every run description, and every workflow history.
func snapshot(t *testing.T, env *enginetest.Env) string {
	t.Helper()
	ctx := context.Background()
	var out strings.Builder
	add := func(v any) {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out.Write(append(b, '\n'))
	}
	recs, err := env.Engine.Results.Records(ctx, "")
	require.NoError(t, err)
	for _, r := range recs {
		_, tr, err := env.Engine.Results.RecordTrace(ctx, r.EpisodeID)
		require.NoError(t, err)
		add(r)
		add(tr)
	}
	cards, err := env.Engine.Memory.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	runs, counts, err := env.Engine.Results.Runs(ctx)
	require.NoError(t, err)
	add(cards)
	add(runs)
	add(counts)
	resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 1000})
	require.NoError(t, err)
	for _, e := range resp.Executions {
		h, err := runstatus.History(ctx, env.Client, e.Execution.WorkflowId, e.Execution.RunId)
		require.NoError(t, err)
		b, err := protojson.Marshal(h)
		require.NoError(t, err)
		fmt.Fprintf(&out, "%s %s %s %d\n%s\n", e.Execution.WorkflowId, e.Execution.RunId, e.Status, len(h.Events), b)
	}
	require.NotEmpty(t, recs)
	require.NotEmpty(t, resp.Executions)
	return out.String()
}

// settle waits until Temporal's visibility lists exactly the executions of
// the trees rooted at roots, each with the closed status its own description
// gives. Visibility is written after the fact: a child started just before
// its parent was terminated is listed as running for a moment, so a snapshot
// taken before visibility settles can differ from a later one with nothing
// changed.
func settle(t *testing.T, env *enginetest.Env, roots ...string) {
	t.Helper()
	ctx := context.Background()
	enginetest.Eventually(t, time.Minute, "visibility to list every execution as closed", func() bool {
		want := map[string]enumspb.WorkflowExecutionStatus{}
		for _, r := range roots {
			if !closedTree(ctx, env.Client, r, true, want) {
				return false
			}
		}
		resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 1000})
		if err != nil || len(resp.Executions) != len(want) {
			return false
		}
		for _, e := range resp.Executions {
			if st, ok := want[e.Execution.WorkflowId]; !ok || st != e.Status {
				return false
			}
		}
		return true
	})
}

// closedTree adds the closed status of execution id and of every child its
// history started to want; it reports false while one of them still runs or
// cannot be read. A child its parent initiated but never started (the parent
// closed first, and its close policy is to terminate) has no description and
// is left out.
func closedTree(ctx context.Context, c client.Client, id string, root bool, want map[string]enumspb.WorkflowExecutionStatus) bool {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) && !root {
		return true
	}
	if err != nil || d.WorkflowExecutionInfo.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return false
	}
	want[id] = d.WorkflowExecutionInfo.Status
	h, err := runstatus.History(ctx, c, id, "")
	if err != nil {
		return false
	}
	for _, ev := range h.Events {
		if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil && !closedTree(ctx, c, a.WorkflowId, false, want) {
			return false
		}
	}
	return true
}

// TestStreamStartRefusesAnExistingRun: `stream start` of a run ID that names
// a run in any state (finished, terminated, or known only to the results
// store: its workflows are in another Temporal) exits with an error naming
// `stream restart` and a new run ID, and changes nothing: records, traces,
// cards, run descriptions and every workflow history are the same before and
// after. `experiment run` refuses an existing experiment the same way.
func TestStreamStartRefusesAnExistingRun(t *testing.T) {
	// The worker's Stop waits for the activities it runs, so that a restart
	// after the termination below leaves no side effect still to come.
	env := enginetest.StartWith(t, enginetest.Quiet{}, func(e *engine.Engine) { e.WorkerStopTimeout = time.Minute })
	ctx := context.Background()
	r, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "good2", Corpus: "builtin:stream", Limit: 5, StageSize: 5})
	require.NoError(t, err)
	require.NoError(t, r.Get(ctx, nil))
	r, err = engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "halted", Corpus: "builtin:stream", Limit: 40, StageSize: 20})
	require.NoError(t, err)
	enginetest.Eventually(t, time.Minute, "a recorded episode of the halted stream", func() bool {
		recs, err := env.Engine.Results.Records(ctx, "halted")
		return err == nil && len(recs) > 0
	})
	require.NoError(t, env.Client.TerminateWorkflow(ctx, contract.StreamWorkflowID("halted"), "", "test: halted"))
	// An activity of the halted stream (an Evolve writing cards, a Record)
	// may still be running on the worker: the restart waits for it.
	env.RestartWorker(t)
	settle(t, env, "good2/stream", "halted/stream")
	// A run moved from another cluster: its description is in the store, its
	// workflows are not in this Temporal.
	require.NoError(t, env.Engine.Results.PutRun(ctx, results.Run{Run: "moved", Kind: "stream", WorkflowID: "moved/stream", Spec: []byte(`{"run_id":"moved"}`)}))

	before := snapshot(t, env)
	cli := map[string]string{"CLINEVO_TEMPORAL_ADDRESS": env.Server.Address()}
	fix := func(run string) string {
		return fmt.Sprintf("a run ID names one run; to continue that run use `clinevo stream restart %s`; to start over choose a new run ID", run)
	}
	// A finished run is not restarted: the advice is a carry run (issue 37,
	// item 10: it used to name `stream restart`, which then refused it).
	finished := "a run ID names one run; that run has finished: to continue its memory start a new run with " +
		"`clinevo stream start --run NEW --memory-mode carry --carry-from good2`; to start over choose a new run ID"
	for _, tc := range []struct{ run, found, fix string }{
		{"good2", "stream good2 already exists (workflow good2/stream is completed; the results store describes it; 5 episode records)", finished},
		{"halted", "stream halted already exists (workflow halted/stream is terminated; the results store describes it; ", fix("halted")},
		{"moved", "stream moved already exists (the results store describes it)", fix("moved")},
	} {
		t.Run(tc.run, func(t *testing.T) {
			_, err := run(t, cli, "--data-dir", env.DataDir, "stream", "start", "--run", tc.run, "--limit", "8", "--stage-size", "4")
			require.ErrorContains(t, err, tc.found)
			require.ErrorContains(t, err, tc.fix)
		})
	}
	require.Equal(t, before, snapshot(t, env), "nothing changed")

	// stream status says what the run is: finished, nothing to wait for.
	out, err := run(t, cli, "--data-dir", env.DataDir, "stream", "status", "good2", "--json")
	require.NoError(t, err)
	var st runstatus.Stream
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	require.Equal(t, "good2/stream", st.WorkflowID)
	require.Equal(t, runstatus.StatusCompleted, st.Status)
	require.Equal(t, "Completed", st.TemporalStatus)
	require.Empty(t, st.Waiting)
	require.NotNil(t, st.Progress)
	require.Equal(t, 5, st.Progress.Cursor, "the finished stream's episodes, from its result")
	// The table says the same, without JSON.
	out, err = run(t, cli, "--data-dir", env.DataDir, "stream", "status", "good2")
	require.NoError(t, err)
	require.Regexp(t, `status\s+completed\n`, out)
	require.Regexp(t, `episodes\s+5 of 5, stage 1 of 1\n`, out)
	// The search attribute says the same: the finished stream completed.
	resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: `ClinevoOutcome = "completed" AND ClinevoRun = "good2"`})
	require.NoError(t, err)
	require.Len(t, resp.Executions, 1)
	// episode list reads the same attributes, filtered; episode show takes
	// the ID without its case suffix.
	out, err = run(t, cli, "--data-dir", env.DataDir, "episode", "list", "--run", "good2", "--json")
	require.NoError(t, err)
	var eps []runstatus.Episode
	require.NoError(t, json.Unmarshal([]byte(out), &eps))
	require.Len(t, eps, 5)
	require.Equal(t, 1, eps[0].Index)
	require.NotNil(t, eps[0].S)
	low := 0
	for _, e := range eps {
		if *e.S < 0.5 {
			low++
		}
	}
	out, err = run(t, cli, "--data-dir", env.DataDir, "episode", "list", "--run", "good2", "--where", "S<0.5", "--json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(out), &eps))
	require.Len(t, eps, low, "the where clause filters on Score")
	out, err = run(t, cli, "--data-dir", env.DataDir, "episode", "show", "good2/p1/s01/e0001")
	require.NoError(t, err)
	require.Contains(t, out, "episode good2/p1/s01/e0001-")
	out, err = run(t, cli, "--data-dir", env.DataDir, "stream", "status", "halted")
	require.NoError(t, err)
	require.Regexp(t, `status\s+terminated: test: halted\n`, out, "and why")

	// An experiment of a name that names a run: refused the same way.
	file := filepath.Join(t.TempDir(), "tiny.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: tiny\nheldout: builtin:heldout\nheldout_limit: 2\nconditions:\n  - {name: H0, kind: heldout}\n"), 0o644))
	_, err = run(t, cli, "--data-dir", env.DataDir, "experiment", "run", "--wait", file)
	require.NoError(t, err, "a new experiment runs")
	// A finished experiment's status shows its conditions' results.
	out, err = run(t, cli, "--data-dir", env.DataDir, "experiment", "status", "tiny")
	require.NoError(t, err)
	require.Contains(t, out, "experiment tiny (workflow tiny/experiment): completed\n")
	require.Regexp(t, `H0\s+heldout\s+completed\s+2/2\s+-\s+\d\.\d{3}\s+\d\.\d{2}\s+-?\d\.\d{3}\s+tiny-H0\n`, out)
	// Its plan beside its use: 2 held-out episodes planned (heldout_limit)
	// and 2 played, and a doctor that called the built-in role every turn.
	require.Regexp(t, `experiment tiny: planned model USD 0\.00, wall \d+s; used model USD 0\.00, wall \d+s\n`, out)
	require.Regexp(t, `(?m)^H0\s+0\s+0\s+2\s+2\s+\d+s\s+\d+s\s*$`, out)
	out, err = run(t, cli, "--data-dir", env.DataDir, "experiment", "status", "tiny", "--json")
	require.NoError(t, err)
	var ex runstatus.Experiment
	require.NoError(t, json.Unmarshal([]byte(out), &ex))
	require.NotNil(t, ex.Plan, ex.PlanError)
	require.NotNil(t, ex.Used)
	require.Equal(t, 2, ex.Plan.Conditions[0].EvalEpisodes)
	require.Equal(t, 2, ex.Used.Conditions[0].EvalEpisodes)
	require.Equal(t, "doctor", ex.Used.Total[0].Role)
	// The experiment exports as inspect logs, one a condition, and so does
	// its held-out run alone (the runs table has no row of it), each named
	// as inspect names its logs.
	for _, name := range []string{"tiny", "tiny-H0"} {
		dir := t.TempDir()
		out, err = run(t, cli, "--data-dir", env.DataDir, "export", "inspect", name, "--out", dir)
		require.NoError(t, err)
		require.Regexp(t, `^wrote \S+/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\S*_tiny-H0_\w+\.eval: 2 samples\n$`, out)
	}
	require.Positive(t, ex.Used.Total[0].Calls, "the doctor's turns, read from the records")
	_, err = run(t, cli, "--data-dir", env.DataDir, "experiment", "run", file)
	require.ErrorContains(t, err, "experiment tiny already exists (workflow tiny/experiment is completed; the results store describes it)")
	require.ErrorContains(t, err, "a run ID names one run; that experiment has finished: read it with `clinevo report tiny`; to run it again choose a new name")
}
