package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/timing"
	"github.com/clinevo/clinevo/workflows"
)

// modelLatency is the time every model call takes in the overhead and
// throughput benchmarks.
const modelLatency = 200 * time.Millisecond

// BenchmarkOverhead plays the same episodes in process (package runner) and as
// a stream on the embedded server, every model call a role that takes 200 ms,
// and reports the orchestration overhead (orchestrated − in process) /
// orchestrated. The calls of both are counted by role and must match: the
// same episodes. Run with -benchtime=1x.
func BenchmarkOverhead(b *testing.B) {
	const episodes = 10
	ctx := context.Background()
	cp, err := corpus.Library{}.Load("builtin:stream")
	if err != nil {
		b.Fatal(err)
	}
	slow := newSlowRoles(modelLatency, 0)
	env := enginetest.StartWith(b, quietLogger{}, func(e *engine.Engine) { e.Activities.Roles = slow.roles })
	var inProcess, orchestrated time.Duration
	var calls int
	var trips roundTrips
	for i := 0; b.Loop(); i++ {
		spec := contract.StreamSpec{RunID: fmt.Sprintf("overhead-%d", i), Corpus: "builtin:stream", Limit: episodes}.WithDefaults()
		slow.reset()
		start := time.Now()
		playInProcess(b, ctx, cp.Cases[:episodes], spec, slow)
		inProcess += time.Since(start)
		want, n := slow.counts()
		calls += n

		slow.reset()
		start = time.Now()
		run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
			workflows.StreamWorkflow, spec)
		if err != nil {
			b.Fatal(err)
		}
		if err := run.Get(ctx, nil); err != nil {
			b.Fatal(err)
		}
		orchestrated += time.Since(start)
		if got, _ := slow.counts(); format(got) != format(want) {
			b.Fatalf("orchestrated calls (%s) differ from the in-process ones (%s): not the same episodes", format(got), format(want))
		}
		trips = readRoundTrips(b, ctx, env.Client, run.GetID(), episodes)
	}
	n := float64(b.N * episodes)
	b.ReportMetric(100*(orchestrated-inProcess).Seconds()/orchestrated.Seconds(), "overhead-%")
	b.ReportMetric(float64((orchestrated-inProcess).Milliseconds())/n, "overhead-ms/episode")
	b.ReportMetric(float64(inProcess.Milliseconds())/n, "in-process-ms/episode")
	b.ReportMetric(float64(orchestrated.Milliseconds())/n, "orchestrated-ms/episode")
	b.ReportMetric(float64(calls)/n, "model-calls/episode")
	trips.report(b)
}

// playInProcess plays and learns from cases in order as the stream of spec
// would, in process, on a fresh memory bank.
func playInProcess(b *testing.B, ctx context.Context, cases []clinic.Case, spec contract.StreamSpec, slow *slowRoles) {
	b.Helper()
	st, err := local.Open(ctx, filepath.Join(b.TempDir(), "memory.db"), memory.HashEmbedder{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	roles, err := slow.roles(spec.Settings)
	if err != nil {
		b.Fatal(err)
	}
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: roles, Settings: spec.Settings, Memory: st}
	var rules []clinic.Rule
	for i, c := range cases {
		m := runner.Meta{RunID: spec.RunID, EpisodeID: fmt.Sprint(i), Number: i + 1, Pass: spec.Pass, Stage: 1, MemoryRuns: spec.MemoryRuns()}
		if spec.Settings.Evolver.Rules() {
			m.Rules = runner.RuleTexts(rules)
		}
		t, err := runner.Play(ctx, c, d, m)
		if err != nil {
			b.Fatal(err)
		}
		l, err := runner.Learn(ctx, d, c, t, m, rules)
		if err != nil {
			b.Fatal(err)
		}
		rules = l.Rules
	}
}

// BenchmarkThroughput runs 8 streams at once on one worker, every model call a
// role that takes 200 ms with at most `limit` calls of a role in flight, and
// reports episodes per minute and their ratio to the bound the limits allow.
// The bound is the shortest time the counted calls could take: a role serves
// at most limit calls at once, so its calls need calls × 200 ms / limit; a
// stream's calls run one after another, so its calls need calls × 200 ms (the
// streams play the same cases, so each makes an eighth of the calls). The
// larger of these is the least wall time; bound episodes/min = episodes /
// that time. At limit 2 the doctor's calls set it, at limit 8 one stream's.
// Run with -benchtime=1x.
func BenchmarkThroughput(b *testing.B) {
	const streams, episodes = 8, 6
	for _, limit := range []int{2, 8} {
		b.Run(fmt.Sprintf("limit-%d", limit), func(b *testing.B) {
			ctx := context.Background()
			slow := newSlowRoles(modelLatency, limit)
			env := enginetest.StartWith(b, quietLogger{}, func(e *engine.Engine) { e.Activities.Roles = slow.roles })
			var wall, least time.Duration
			for i := 0; b.Loop(); i++ {
				slow.reset()
				start := time.Now()
				var wg sync.WaitGroup
				errs := make([]error, streams)
				for s := range streams {
					spec := contract.StreamSpec{RunID: fmt.Sprintf("throughput-%d-%d", i, s), Corpus: "builtin:stream", Limit: episodes}
					run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID),
						TaskQueue: contract.TaskQueue}, workflows.StreamWorkflow, spec)
					if err != nil {
						b.Fatal(err)
					}
					wg.Go(func() { errs[s] = run.Get(ctx, nil) })
				}
				wg.Wait()
				wall += time.Since(start)
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
				counts, total := slow.counts()
				if total%streams != 0 {
					b.Fatalf("%d calls (%s) are not the same for each of %d streams", total, format(counts), streams)
				}
				t := time.Duration(total/streams) * modelLatency
				for _, n := range counts {
					t = max(t, time.Duration(n)*modelLatency/time.Duration(limit))
				}
				least += t
				b.Logf("calls %s; least wall %v, wall %v", format(counts), t, time.Since(start))
			}
			n := float64(b.N * streams * episodes)
			b.ReportMetric(n/wall.Minutes(), "episodes/min")
			b.ReportMetric(n/least.Minutes(), "bound-episodes/min")
			b.ReportMetric(least.Seconds()/wall.Seconds(), "ratio-to-bound")
		})
	}
}

// roundTrips are what a stream spent per episode, read from its histories as
// `clinevo stream timing` reads them.
type roundTrips struct {
	timing.Report
	episodes int
}

func readRoundTrips(b *testing.B, ctx context.Context, c client.Client, workflowID string, episodes int) roundTrips {
	b.Helper()
	runs, err := timing.Collect(ctx, timing.FromClient(c), workflowID)
	if err != nil {
		b.Fatal(err)
	}
	return roundTrips{Report: timing.Analyse(runs), episodes: episodes}
}

// report reports workflow tasks, activities and local activities per episode
// and the dispatch latencies.
func (r roundTrips) report(b *testing.B) {
	var tasks, acts, locals int
	for _, n := range r.WorkflowTasks {
		tasks += n
	}
	for _, d := range r.ActivityRun {
		acts += d.Count
	}
	for _, d := range r.LocalActivityRun {
		locals += d.Count
	}
	n := float64(r.episodes)
	b.ReportMetric(float64(tasks)/n, "workflow-tasks/episode")
	b.ReportMetric(float64(acts)/n, "activities/episode")
	b.ReportMetric(float64(locals)/n, "local-activities/episode")
	b.ReportMetric(r.WorkflowTaskDispatch.P50, "wt-dispatch-p50-ms")
	b.ReportMetric(r.ChildWorkflowStart.P50, "child-start-p50-ms")
	b.ReportMetric(r.LocalActivityRun["Decide"].P50, "decide-p50-ms")
}
