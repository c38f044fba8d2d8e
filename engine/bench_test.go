package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/workflows"
)

// BenchmarkOrchestration compares one learning episode played by the
// in-process loop with the same episode as Temporal workflows and activities on
// the embedded server. Run with -benchtime=Nx (N ≤ 500).
func BenchmarkOrchestration(b *testing.B) {
	ctx := context.Background()
	cp, err := corpus.Library{}.Load("builtin:stream")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("in-process", func(b *testing.B) {
		st, err := local.Open(ctx, filepath.Join(b.TempDir(), "m.db"), memory.HashEmbedder{})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		spec := contract.StreamSpec{RunID: "bench", Corpus: "builtin:stream"}.WithDefaults()
		d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: spec.Settings, Memory: st}
		var rules []clinic.Rule
		for i := 0; b.Loop(); i++ {
			c := cp.Cases[i%len(cp.Cases)]
			m := runner.Meta{RunID: "bench", EpisodeID: fmt.Sprint(i), Number: i + 1, Pass: 1, Stage: 1, MemoryRuns: []string{"bench"}, Rules: runner.RuleTexts(rules)}
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
		b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/episode")
	})
	b.Run("temporal", func(b *testing.B) {
		env := enginetest.Start(b)
		n := min(b.N, len(cp.Cases))
		spec := contract.StreamSpec{RunID: fmt.Sprintf("bench-%d", b.N), Corpus: "builtin:stream", Limit: n, StageSize: 50}
		b.ResetTimer()
		run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
			workflows.StreamWorkflow, spec)
		if err != nil {
			b.Fatal(err)
		}
		if err := run.Get(ctx, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1000/float64(n), "ms/episode")
		b.StopTimer()
		// Where the time went: round trips per episode and the server's
		// dispatch, read from the histories as `clinevo stream timing` does.
		readRoundTrips(b, ctx, env.Client, run.GetID(), n).report(b)
	})
}
