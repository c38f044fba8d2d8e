package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// BenchmarkHeldOutConcurrency evaluates 100 held-out cases with a doctor that
// takes 200 ms per turn, at evaluation concurrency 1 and 8. Run with
// -benchtime=1x; the speedup is the ratio of the two s/op.
func BenchmarkHeldOutConcurrency(b *testing.B) {
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency-%d", conc), func(b *testing.B) {
			slow := newSlowRoles(200*time.Millisecond, 0)
			env := enginetest.StartWith(b, quietLogger{}, func(e *engine.Engine) {
				e.Activities.Roles = func(st settings.Settings) (runner.Roles, error) {
					r := runner.BuiltinRoles()
					doc, err := builtinDoctor(st)
					r.Doctor = slowDoctor{Doctor: doc, s: slow}
					return r, err
				}
			})
			ctx := context.Background()
			var ids []string
			for i := 1; i <= 100; i++ {
				ids = append(ids, fmt.Sprintf("heldout-%04d", i))
			}
			for i := 0; b.Loop(); i++ {
				spec := contract.EvalSpec{RunID: fmt.Sprintf("bench-h%d-%d", conc, i), Kind: contract.KindHeldOut, Corpus: "builtin:heldout",
					CaseIDs: ids, Stage: 1, Concurrency: conc}
				run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: spec.RunID + "/evaluation", TaskQueue: contract.TaskQueue},
					workflows.EvaluationWorkflow, spec)
				if err != nil {
					b.Fatal(err)
				}
				if err := run.Get(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
