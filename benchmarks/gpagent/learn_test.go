package gpagent_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/internal/benchsize"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

func gpDeps(tb testing.TB, withMemory bool) runner.Deps {
	s := settings.Default()
	s.Benchmark = gpagent.Name
	d := runner.Deps{Bench: gpagent.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: s}
	if withMemory {
		st, err := local.Open(context.Background(), filepath.Join(tb.TempDir(), "memory.db"), memory.HashEmbedder{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { st.Close() })
		d.Memory = st
	}
	return d
}

// playGP plays cases in order, learning after each when the deps have memory.
func playGP(tb testing.TB, d runner.Deps, cases []clinic.Case, run string, learn bool) []clinic.Trace {
	ctx := context.Background()
	var rules []clinic.Rule
	var out []clinic.Trace
	for i, c := range cases {
		m := runner.Meta{RunID: run, EpisodeID: fmt.Sprintf("%s/e%d", run, i+1), Number: i + 1, Pass: 1, Stage: c.Meta.Stage,
			Rules: runner.RuleTexts(rules), MemoryRuns: []string{run}}
		tr, err := runner.Play(ctx, c, d, m)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, tr)
		if learn {
			l, err := runner.Learn(ctx, d, c, tr, m, rules)
			if err != nil {
				tb.Fatal(err)
			}
			rules = l.Rules
		}
	}
	return out
}

// means averages each metric over the traces that define it, with S and the cost.
func means(traces []clinic.Trace) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, t := range traces {
		for k, v := range t.Scores.Metrics {
			sum[k] += v
			n[k]++
		}
		sum["S"] += t.Scores.S
		n["S"]++
		sum["cost"] += t.Scores.Cost
		n["cost"]++
	}
	out := map[string]float64{}
	for k := range sum {
		out[k] = sum[k] / float64(n[k])
	}
	return out
}

// TestBuiltinLearnsToRefer plays the first two stages of the GP stream with
// the built-in roles. Without memory the doctor never refers: it misses every
// referral and never refers a manageable case. With memory and the
// write-back, it learns red flags and referral from its own episodes: stage
// 2 misses far fewer referrals than stage 1 and than the doctor without memory.
func TestBuiltinLearnsToRefer(t *testing.T) {
	t.Parallel()
	cp, err := benchtest.Library(gpagent.Benchmark{}).Load("builtin:gp@7")
	if err != nil {
		t.Fatal(err)
	}
	cases := cp.Cases[:100]
	e0 := means(playGP(t, gpDeps(t, false), cases, "e0", false))
	if e0["miss_refer"] != 1 || e0["miss_gp"] != 0 {
		t.Fatalf("without memory: Miss-Refer %v (want 1), Miss-GP %v (want 0)", e0["miss_refer"], e0["miss_gp"])
	}
	e1 := playGP(t, gpDeps(t, true), cases, "e1", true)
	s1, s2 := means(e1[:50]), means(e1[50:])
	t.Logf("Miss-Refer stage 1 %.3f, stage 2 %.3f; Mgmt %.3f, %.3f; Miss-GP %.3f, %.3f", s1["miss_refer"], s2["miss_refer"], s1["mgmt"], s2["mgmt"], s1["miss_gp"], s2["miss_gp"])
	if s2["miss_refer"] > 0.6 || s2["miss_refer"] >= s1["miss_refer"] || s2["mgmt"] <= e0["mgmt"] {
		t.Fatalf("with memory: Miss-Refer %v then %v, Mgmt %v (without memory %v)", s1["miss_refer"], s2["miss_refer"], s2["mgmt"], e0["mgmt"])
	}
}

// BenchmarkGPShape measures what the built-in roles do on the GP corpus in
// process: the first 200 stream cases without memory (E0-like) and with
// memory from empty and write-back (E1-like), by stage of 50, then the 100
// held-out cases without memory (H0-like) and with E1's memory frozen
// (H3-like). go test ./benchmarks/gpagent -run '^$' -bench GPShape -benchtime 1x
// At benchsize.Small: 40 stream cases in stages of 10 and 10 held-out cases.
func BenchmarkGPShape(b *testing.B) {
	n, stage := benchsize.Pick(200, 40), benchsize.Pick(50, 10)
	cp, err := benchtest.Library(gpagent.Benchmark{}).Load("builtin:gp@7")
	if err != nil {
		b.Fatal(err)
	}
	held, err := benchtest.Library(gpagent.Benchmark{}).Load("builtin:gp-heldout@7")
	if err != nil {
		b.Fatal(err)
	}
	cases, heldCases := cp.Cases[:n], held.Cases[:benchsize.Pick(len(held.Cases), 10)]
	for b.Loop() {
		e0 := playGP(b, gpDeps(b, false), cases, "e0", false)
		d := gpDeps(b, true)
		e1 := playGP(b, d, cases, "e1", true)
		for s := 0; s < n/stage; s++ {
			m0, m1 := means(e0[stage*s:stage*s+stage]), means(e1[stage*s:stage*s+stage])
			b.Logf("stage %d  E0: %s\n          E1: %s", s+1, line(m0), line(m1))
		}
		var h0, h3 []clinic.Trace
		for i, c := range heldCases {
			t0, err := runner.Play(context.Background(), c, gpDeps(b, false), runner.Meta{RunID: "h0", EpisodeID: fmt.Sprintf("h0/e%d", i+1), Number: 1})
			if err != nil {
				b.Fatal(err)
			}
			t3, err := runner.Play(context.Background(), c, d, runner.Meta{RunID: "h3", EpisodeID: fmt.Sprintf("h3/e%d", i+1), Number: len(cases) + 1,
				AsOf: len(cases), Frozen: true, MemoryRuns: []string{"e1"}})
			if err != nil {
				b.Fatal(err)
			}
			h0, h3 = append(h0, t0), append(h3, t3)
		}
		m0, m1, m3 := means(e0), means(e1), means(h3)
		b.Logf("H0: %s\nH3: %s", line(means(h0)), line(m3))
		for k, v := range map[string]float64{"E0-mgmt": m0["mgmt"], "E1-mgmt": m1["mgmt"], "E1-miss_refer": m1["miss_refer"], "E1-miss_gp": m1["miss_gp"],
			"E1-dx": m1["dx"], "H3-mgmt": m3["mgmt"], "H3-miss_refer": m3["miss_refer"], "H3-miss_gp": m3["miss_gp"], "H3-dx": m3["dx"]} {
			b.ReportMetric(v, k)
		}
	}
}

// line renders the headline metrics.
func line(m map[string]float64) string {
	var parts []string
	for _, k := range []string{"S", "dx", "tx", "mgmt", "miss_refer", "miss_gp", "dest", "cost", "turns", "dup_rate"} {
		parts = append(parts, fmt.Sprintf("%s=%.3f", k, m[k]))
	}
	return strings.Join(parts, " ")
}
