package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/runner"
)

// quickRun is one condition of the quick experiment's shape played in process.
type quickRun struct {
	s, strict         []float64
	written, rejected int
	reasons           map[string]int
}

func (q quickRun) mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// playQuick plays cases in order: without memory and rules (E0-like), or with
// memory from empty, rules on and write-back feedback (E1-like).
func playQuick(b testing.TB, cases []clinic.Case, learn bool) quickRun {
	ctx := context.Background()
	d := deps(b, learn)
	q := quickRun{reasons: map[string]int{}}
	var rules []clinic.Rule
	for i, c := range cases {
		m := runner.Meta{RunID: "quick", EpisodeID: fmt.Sprintf("quick/e%d", i+1), Number: i + 1, Pass: 1, Stage: i/25 + 1, MemoryRuns: []string{"quick"}}
		if learn {
			m.Rules = runner.RuleTexts(rules)
		}
		tr, err := runner.Play(ctx, c, d, m)
		if err != nil {
			b.Fatal(err)
		}
		q.s = append(q.s, tr.Scores.S)
		strict := 0.0
		if tr.Scores.Strict {
			strict = 1
		}
		q.strict = append(q.strict, strict)
		if !learn {
			continue
		}
		l, err := runner.Learn(ctx, d, evolver.DefaultConfig(), c, tr, m, rules)
		if err != nil {
			b.Fatal(err)
		}
		rules = l.Rules
		q.written += len(l.Written)
		for _, s := range l.Skipped {
			q.rejected++
			_, why, _ := strings.Cut(s, "rejected: ")
			kind, _, _ := strings.Cut(why, " ")
			q.reasons[kind]++
		}
	}
	return q
}

// BenchmarkQuickShape measures what the built-in roles learn on the first 100
// stream cases, the quick experiment's stream, in process: E0-like (no memory,
// static prompt) against E1-like (memory from empty, rules, write-back).
// go test ./runner -run '^$' -bench QuickShape -benchtime 1x
func BenchmarkQuickShape(b *testing.B) {
	cases := synth.Generate(7)["stream"][:100]
	for b.Loop() {
		e0 := playQuick(b, cases, false)
		e1 := playQuick(b, cases, true)
		b.ReportMetric(e0.mean(e0.s), "E0-S")
		b.ReportMetric(e0.mean(e0.strict), "E0-strict")
		b.ReportMetric(e1.mean(e1.s), "E1-S")
		b.ReportMetric(e1.mean(e1.strict), "E1-strict")
		b.ReportMetric(e1.mean(e1.s[75:]), "E1-last25-S")
		b.ReportMetric(float64(e1.written), "cards-written")
		b.ReportMetric(float64(e1.rejected), "rejected")
		b.Logf("rejections by reason: %v", e1.reasons)
	}
}
