package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/internal/benchsize"
	"github.com/clinevo/clinevo/runner"
)

// quickRun is one condition of the quick experiment's shape played in process.
type quickRun struct {
	s, strict         []float64
	written, rejected int
	reasons           map[string]int // rejections by kind (identifier, near-duplicate, hidden value)
	deps              runner.Deps
	rules             []clinic.Rule
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// playQuick plays cases in order in stages of 25: without memory and rules
// (E0-like), or with memory from empty, rules and write-back feedback (E1-like).
func playQuick(b testing.TB, cases []clinic.Case, learn bool) quickRun {
	ctx := context.Background()
	d := deps(b, learn)
	q := quickRun{reasons: map[string]int{}, deps: d}
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
		l, err := runner.Learn(ctx, d, c, tr, m, rules)
		if err != nil {
			b.Fatal(err)
		}
		rules = l.Rules
		q.rules = rules
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

// heldOut plays cases with the memory and rules of a finished run frozen (or
// none) and returns their S.
func heldOut(b testing.TB, cases []clinic.Case, from quickRun, after int) []float64 {
	var out []float64
	for i, c := range cases {
		m := runner.Meta{RunID: "held", EpisodeID: fmt.Sprintf("held/e%d", i+1), Number: after + 1, AsOf: after, Frozen: true,
			MemoryRuns: []string{"quick"}, Rules: runner.RuleTexts(from.rules)}
		tr, err := runner.Play(context.Background(), c, from.deps, m)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, tr.Scores.S)
	}
	return out
}

// BenchmarkQuickShape measures what the built-in roles learn on the first 100
// stream cases (the quick experiment's stream, stages of 25) in process, on
// each corpus version: E0-like (no memory, static prompt) against E1-like
// (memory from empty, rules, write-back), and how many cards the leak screen
// rejected; then the first 50 held-out cases without memory (H0-like) and
// with E1's memory and rules frozen (H3-like, with E1's bank where the quick
// experiment uses E2's). go test ./runner -run '^$' -bench QuickShape -benchtime 1x
// At benchsize.Small: 20 stream cases in stages of 5 and 10 held-out cases.
func BenchmarkQuickShape(b *testing.B) {
	n, held := benchsize.Pick(100, 20), benchsize.Pick(50, 10)
	for v := synth.V1; v <= synth.Latest; v++ {
		b.Run(fmt.Sprintf("v%d", v), func(b *testing.B) {
			splits, err := synth.GenerateVersion(v, 7)
			if err != nil {
				b.Fatal(err)
			}
			cases := splits["stream"][:n]
			for b.Loop() {
				e0, e1 := playQuick(b, cases, false), playQuick(b, cases, true)
				b.ReportMetric(mean(heldOut(b, splits["heldout"][:held], e0, n)), "H0-S")
				b.ReportMetric(mean(heldOut(b, splits["heldout"][:held], e1, n)), "H3(E1)-S")
				b.ReportMetric(mean(e0.s), "E0-S")
				b.ReportMetric(mean(e0.strict), "E0-strict")
				b.ReportMetric(mean(e1.s), "E1-S")
				b.ReportMetric(mean(e1.strict), "E1-strict")
				b.ReportMetric(float64(e1.written), "cards")
				b.ReportMetric(float64(e1.rejected), "rejected")
				var stages []string
				for s := 0; s < 4; s++ {
					stages = append(stages, fmt.Sprintf("%.3f/%.3f", mean(e0.s[s*n/4:(s+1)*n/4]), mean(e1.s[s*n/4:(s+1)*n/4])))
				}
				b.Logf("stage S (E0/E1): %s; rejections by kind: %v", strings.Join(stages, " "), e1.reasons)
			}
		})
	}
}
