package durability_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// methodSpecs are five streams of eight cases, one per learning method the
// crash test covers: mem0 (memory consolidated with updates and deletes),
// gepa (a development phase before the stream), ace (a playbook with
// counters), clinevo's own in a permuted order (an experiment's ordering),
// and memrl (a utility on every card, versioned by episode).
func methodSpecs() []contract.StreamSpec {
	var out []contract.StreamSpec
	for _, m := range []struct {
		method string
		memory contract.MemoryMode
	}{{settings.MethodMem0, contract.MemoryEmpty}, {settings.MethodGEPA, contract.MemoryDisabled}, {settings.MethodACE, contract.MemoryDisabled}} {
		s := settings.Default()
		s.Episode.MDT = settings.MDTOff
		s.Evolver.Method = m.method
		s.Evolver.Dev = settings.Dev{Corpus: "builtin:heldout", Cases: 2, Generations: 1, Population: 2}
		if m.method == settings.MethodMem0 {
			s.Evolver.RuleBudget = 0
		}
		out = append(out, contract.StreamSpec{RunID: "crash-" + m.method, Corpus: "builtin:stream", Limit: 8, StageSize: 4,
			Memory: m.memory, ActivityTimeoutSeconds: 3, EvalConcurrency: 2, Settings: s})
	}
	// One ordering of an experiment's orderings (issue 38): the same eight
	// cases in the permutation of seed 3, memory and rules from empty.
	s := settings.Default()
	s.Episode.MDT = settings.MDTOff
	out = append(out, contract.StreamSpec{RunID: "crash-ordering", Corpus: "builtin:stream", Limit: 8, StageSize: 4, Order: 3,
		Memory: contract.MemoryEmpty, ActivityTimeoutSeconds: 3, EvalConcurrency: 2, Settings: s})
	// MemRL: a utility history on every card an episode retrieved,
	// credited once per card and episode however often a step retries.
	s = settings.Default()
	s.Episode.MDT = settings.MDTOff
	s.Evolver.Method, s.Evolver.RuleBudget = settings.MethodMemRL, 0
	out = append(out, contract.StreamSpec{RunID: "crash-memrl", Corpus: "builtin:stream", Limit: 8, StageSize: 4,
		Memory: contract.MemoryEmpty, ActivityTimeoutSeconds: 3, EvalConcurrency: 2, Settings: s})
	return out
}

// TestMethodsSurviveSIGKILL runs mem0, gepa, ace, an ordering and memrl streams at once on a
// worker process that is killed with SIGKILL twice, mid development phase
// and mid stream, and compares everything with an uninterrupted run in
// process: every record (rule books and ACE's counters in them), trace,
// development record, and card (Mem0's updated and deleted memories with
// their eviction episodes, MemRL's utility histories).
func TestMethodsSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	t.Parallel() // see TestMain
	ctx := context.Background()
	specs := methodSpecs()
	ref := enginetest.Start(t)
	for _, spec := range specs {
		run, err := engine.StartStream(ctx, ref.Client, ref.Engine.Results, "", spec)
		require.NoError(t, err)
		require.NoError(t, run.Get(ctx, nil), spec.RunID)
	}
	_, total, err := ref.Engine.Results.Counts(ctx)
	require.NoError(t, err)

	bin, dir, addr, server, worker := devAndWorker(t)
	c := dial(t, addr, server)
	var runs []client.WorkflowRun
	for _, spec := range specs {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
			workflows.StreamWorkflow, spec)
		require.NoError(t, err)
		runs = append(runs, run)
	}
	res, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	defer res.Close()
	worker = killAtTurns(t, res, worker, bin, dir, addr, total/4, total/2)
	got := finishAndOpen(t, runs, worker, dir, 8)
	for _, spec := range specs {
		sameRecords(t, ref.Engine.Results, got.Results, spec.RunID)
	}
	gepa := specs[1].RunID
	for _, dev := range []string{contract.DevRunID(gepa, 0, 0), contract.DevRunID(gepa, 1, 0), contract.DevRunID(gepa, 1, 1)} {
		sameRecords(t, ref.Engine.Results, got.Results, dev)
	}
	for _, run := range []string{specs[0].RunID, specs[3].RunID, specs[4].RunID} {
		sameMemory(t, ref.Engine.Memory, got.Memory, run)
	}
	credited, err := got.Memory.List(ctx, memory.Filter{Runs: []string{specs[4].RunID}, IncludeEvicted: true})
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(credited, func(c clinic.Card) bool { return len(c.Utility) > 0 }),
		"memrl's cards carry their utility histories (compared above)")
	ordered, err := got.Results.Records(ctx, specs[3].RunID)
	require.NoError(t, err)
	var cases []string
	for _, r := range ordered {
		cases = append(cases, r.CaseID)
	}
	// contract.CaseOrder(8, 3, 0) of stream-0001 ... stream-0008.
	var want []string
	for _, i := range contract.CaseOrder(8, 3, 0) {
		want = append(want, fmt.Sprintf("stream-%04d", i+1))
	}
	require.Equal(t, want, cases, "the ordering's cases in its permutation")
	require.False(t, slices.IsSorted(cases), "not the published order")
	ace, err := got.Results.Records(ctx, specs[2].RunID)
	require.NoError(t, err)
	counted := 0
	for _, r := range ace[len(ace)-1].RuleBook {
		counted += r.Helpful + r.Harmful
	}
	require.Positive(t, counted, "ace's playbook carries its counters")

	// An operator follows the methods in the workers' output.
	logs, err := os.ReadFile(filepath.Join(dir, "worker.log"))
	require.NoError(t, err)
	for _, line := range []string{`msg="learning method updated"`, `method=mem0`, `method=ace`, `msg="development phase finished"`,
		`msg="development candidate bred"`} {
		require.Contains(t, string(logs), line, "the worker's output")
	}
}

// sameRecords requires a run's records and their traces to be in have as
// they are in want, timings aside.
func sameRecords(t *testing.T, want, have results.Store, run string) {
	t.Helper()
	ctx := context.Background()
	w, err := want.Records(ctx, run)
	require.NoError(t, err)
	g, err := have.Records(ctx, run)
	require.NoError(t, err)
	require.NotEmpty(t, w, run)
	require.Len(t, g, len(w), run)
	for i := range w {
		require.Equal(t, enginetest.Untimed(w[i]), enginetest.Untimed(g[i]), "record %d of %s", i+1, run)
		_, wt, err := want.RecordTrace(ctx, w[i].EpisodeID)
		require.NoError(t, err)
		_, gt, err := have.RecordTrace(ctx, g[i].EpisodeID)
		require.NoError(t, err)
		require.Equal(t, wt, gt, "trace of %s", w[i].EpisodeID)
	}
}

// sameMemory requires a run's cards, evicted ones too, to be in have as
// they are in want.
func sameMemory(t *testing.T, want, have memory.Store, run string) {
	t.Helper()
	ctx := context.Background()
	f := memory.Filter{Runs: []string{run}, IncludeEvicted: true}
	wc, err := want.List(ctx, f)
	require.NoError(t, err)
	gc, err := have.List(ctx, f)
	require.NoError(t, err)
	require.NotEmpty(t, wc, "%s wrote memories", run)
	require.Equal(t, wc, gc, "%s's memories, evicted ones too", run)
}

// finishAndOpen waits for the streams of runs to finish with episodes
// episodes each, stops the worker, and opens the stores it wrote (closed
// with the test).
func finishAndOpen(t *testing.T, runs []client.WorkflowRun, worker *proc, dir string, episodes int) *engine.Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, run := range runs {
		var out contract.StreamResult
		require.NoError(t, run.Get(ctx, &out))
		require.Equal(t, episodes, out.Episodes, run.GetID())
	}
	worker.kill() // the engine below opens the same stores
	got, err := engine.Open(context.Background(), engine.Options{DataDir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { got.Close() })
	return got
}

// killAtTurns kills the worker with SIGKILL each time the results store
// holds the next of the given numbers of turns, and starts another in its
// place; it returns the last one started.
func killAtTurns(t *testing.T, res results.Store, worker *proc, bin, dir, addr string, turns ...int) *proc {
	t.Helper()
	for _, at := range turns {
		enginetest.Eventually(t, 3*time.Minute, fmt.Sprintf("%d stored turns", at), func() bool {
			_, n, err := res.Counts(context.Background())
			return err == nil && n >= at
		})
		worker.kill()
		worker = start(t, bin, dir, "worker.log", "worker", "--address", addr)
	}
	return worker
}
